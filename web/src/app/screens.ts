import type { ComponentType } from "react";
import type { Action, Role } from "../api/types.ts";
import { lazyScreen } from "./lazy-screen.tsx";

/**
 * The app's screens. To add an area (catalogue, review, search, families …): write its screens under
 * web/src/screens/<area>/, export `screens: ScreenDef[]` from web/src/screens/<area>/screen.ts (found by the
 * glob below, so areas built side by side never edit this file), and put its strings in
 * web/src/i18n/areas/<area>.en.json and .ar.json. The shell
 * gives it a URL, a place in the menu, the document title, focus on arrival, and sign-in when needed.
 */
/** The menu's groups, in order: a person sees only the groups holding a screen they may use. */
export const MENU_GROUPS = ["home", "archive", "catalogue", "review", "families", "cases", "exhibitions", "admin"] as const;
export type MenuGroup = (typeof MENU_GROUPS)[number];

export interface ScreenProps {
  params: Record<string, string>;
}

export interface ScreenDef {
  id: string;
  /** "/gallery", "/photo/:sha256" */
  path: string;
  /** i18n key of the screen's name (menu entry and document title). */
  title: string;
  /** Shown in the main menu, in this order. */
  menu?: number;
  /** The menu's group this screen is listed under (an area of the work), in MENU_GROUPS order. */
  group?: MenuGroup;
  /** Actions (GET /api/permissions) the screen needs; without them it is not offered and shows a refusal. */
  requires?: readonly Action[];
  /** Only for these roles (the family portal: caseworkers hold its actions too, but it answers only families). */
  roles?: readonly Role[];
  /** Usable without signing in (the custody log is for anyone to check). */
  public?: boolean;
  component: ComponentType<ScreenProps>;
}

export const SCREENS: ScreenDef[] = [
  { id: "gallery", path: "/gallery", title: "gallery.title", group: "archive", menu: 10, requires: ["archive.read"], component: lazyScreen(() => import("../screens/Gallery.tsx"), "Gallery") },
  { id: "viewer", path: "/photo/:sha256", title: "viewer.title", requires: ["archive.read"], component: lazyScreen(() => import("../screens/Viewer.tsx"), "Viewer") },
  { id: "intake", path: "/intake", title: "intake.title", group: "archive", menu: 20, requires: ["archive.ingest"], component: lazyScreen(() => import("../screens/Intake.tsx"), "Intake") },
  { id: "log", path: "/log", title: "log.title", group: "archive", menu: 80, public: true, component: lazyScreen(() => import("../screens/Log.tsx"), "LogScreen") },
  { id: "admin", path: "/admin/users", title: "admin.title", group: "admin", menu: 90, requires: ["users.manage"], component: lazyScreen(() => import("../screens/Admin.tsx"), "Admin") },
  { id: "account", path: "/account", title: "account.title", requires: ["account.self"], component: lazyScreen(() => import("../screens/Account.tsx"), "Account") },
  ...Object.values(import.meta.glob<readonly ScreenDef[]>("../screens/*/screen.ts", { eager: true, import: "screens" })).flat(),
];

export function findScreen(path: string, match: (pattern: string, path: string) => Record<string, string> | null): { screen: ScreenDef; params: Record<string, string> } | null {
  for (const screen of SCREENS) {
    const params = match(screen.path, path);
    if (params) return { screen, params };
  }
  return null;
}
