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

/** Where a screen is shown: "Loading…" while its code arrives, and a sentence, not a blank page, if it cannot. */
export function ScreenFrame({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <ScreenLoadFailed fallback={<Notice kind="error" title={t("app.screenFailed")}>{t("app.screenFailedHelp")}</Notice>}>
      <Suspense fallback={<p className="muted">{t("app.loading")}</p>}>{children}</Suspense>
    </ScreenLoadFailed>
  );
}

class ScreenLoadFailed extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
