import { Component, lazy, Suspense, type ComponentType, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Notice } from "../components/Notice.tsx";
import type { ScreenProps } from "./screens.ts";

/**
 * A screen whose code is fetched the first time it is opened: each screen is its own file of the build, so a
 * family on a phone who opens the portal does not download the forensic, catalogue and exhibition screens too.
 */
export function lazyScreen<K extends string>(load: () => Promise<Record<K, ComponentType<ScreenProps>>>, name: K): ComponentType<ScreenProps> {
  return lazy(async (): Promise<{ default: ComponentType<ScreenProps> }> => ({ default: (await load())[name] }));
}

/**
 * Where a screen is shown: "Loading…" while its code arrives, and a sentence instead of a blank page if it cannot
 * be shown, which says whether its code did not arrive (the connection) or the screen itself failed.
 */
export function ScreenFrame({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <ScreenFailed
      fallback={(kind) =>
        kind === "load" ? (
          <Notice kind="error" title={t("app.screenFailed")}>
            {t("app.screenFailedHelp")}
          </Notice>
        ) : (
          <Notice kind="error" title={t("app.screenError")}>
            {t("app.screenErrorHelp")}
          </Notice>
        )
      }
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
