import { Component, createElement, Suspense, useState, type ComponentType, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Notice } from "../components/Notice.tsx";
import type { ScreenProps } from "./screens.ts";

/** Each lazy screen's way to forget that its code did not arrive, so that "Try again" fetches it anew. */
const forgetFailures = new Set<() => void>();

/**
 * A screen whose code is fetched the first time it is opened: each screen is its own file of the build, so a
 * family on a phone who opens the portal does not download the forensic, catalogue and exhibition screens too.
 * Unlike React's `lazy`, a fetch that failed is not remembered for the life of the page: the reader's "Try again"
 * (ScreenFrame) fetches it again, so a dropped connection does not cost them a reload and what they had typed
 * elsewhere in the app.
 */
export function lazyScreen<K extends string>(load: () => Promise<Record<K, ComponentType<ScreenProps>>>, name: K): ComponentType<ScreenProps> {
  let loaded: ComponentType<ScreenProps> | null = null;
  let pending: Promise<void> | null = null;
  let failure: unknown = null;
  forgetFailures.add(() => {
    failure = null;
  });
  function LazyScreen(props: ScreenProps) {
    if (loaded) return createElement(loaded, props);
    // The error boundary shows it; it is thrown again on every render until the reader asks to try again.
    if (failure !== null) throw failure;
    pending ??= load().then(
      (m) => {
        loaded = m[name];
      },
      (err: unknown) => {
        failure = err ?? new Error("the screen's code did not arrive");
        pending = null;
      },
    );
    // Suspense shows "Loading…" until the fetch ends, then renders this again.
    throw pending;
  }
  return LazyScreen;
}

/**
 * Where a screen is shown: "Loading…" while its code arrives, and a sentence instead of a blank page if it cannot
 * be shown, which says whether its code did not arrive (the connection) or the screen itself failed.
 */
export function ScreenFrame({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  // A new key mounts the boundary and the screen afresh: "Try again".
  const [attempt, setAttempt] = useState(0);
  const retry = () => {
    for (const forget of forgetFailures) forget();
    setAttempt((n) => n + 1);
  };
  const words = { load: ["app.screenFailed", "app.screenFailedHelp"], error: ["app.screenError", "app.screenErrorHelp"] } as const;
  return (
    <ScreenFailed
      key={attempt}
      fallback={(kind) => (
        <Notice kind="error" title={t(words[kind][0])}>
          {t(words[kind][1])}
          <p>
            <button type="button" data-testid="screen-retry" onClick={retry}>
              {t("app.tryAgain")}
            </button>
          </p>
        </Notice>
      )}
    >
      <Suspense fallback={<p className="muted">{t("app.loading")}</p>}>{children}</Suspense>
    </ScreenFailed>
  );
}

/** What browsers say when a module's file could not be fetched (Chromium, Firefox, Safari). */
const NOT_FETCHED = /dynamically imported module|Importing a module script failed|Unable to preload/i;

type Failure = "load" | "error";

class ScreenFailed extends Component<{ fallback: (kind: Failure) => ReactNode; children: ReactNode }, { failed: Failure | null }> {
  override state: { failed: Failure | null } = { failed: null };
  static getDerivedStateFromError(error: unknown): { failed: Failure } {
    return { failed: error instanceof Error && NOT_FETCHED.test(error.message) ? "load" : "error" };
  }
  override render(): ReactNode {
    return this.state.failed ? this.props.fallback(this.state.failed) : this.props.children;
  }
}
