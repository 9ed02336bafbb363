import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** Authenticity: per card, whether its photographs are what they claim to be, with the reasons. */
export const screens: ScreenDef[] = [
  { id: "authenticity", path: "/authenticity", title: "authenticity.list.title", group: "archive", menu: 22, requires: ["authenticity.read"], component: lazyScreen(() => import("./CardsList.tsx"), "CardsList") },
  { id: "authenticity-card", path: "/authenticity/:source", title: "authenticity.card.title", requires: ["authenticity.read"], component: lazyScreen(() => import("./CardPage.tsx"), "CardPage") },
];
