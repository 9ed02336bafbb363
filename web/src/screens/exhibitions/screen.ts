import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** Exhibitions: curated, redacted, consented selections for the public (src/exhibitions). */
export const screens: ScreenDef[] = [
  { id: "exhibitions", path: "/exhibitions-work", title: "exhibitions.list.title", group: "exhibitions", menu: 60, requires: ["exhibition.read"], component: lazyScreen(() => import("./ExhibitionsList.tsx"), "ExhibitionsList") },
  { id: "exhibition", path: "/exhibitions-work/:id", title: "exhibitions.page.title", requires: ["exhibition.read"], component: lazyScreen(() => import("./ExhibitionPage.tsx"), "ExhibitionPage") },
];
