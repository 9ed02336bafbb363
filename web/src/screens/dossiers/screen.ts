import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** Dossiers: named cases, their exhibits with reasoning, frozen versions and packages for recipients. */
export const screens: ScreenDef[] = [
  { id: "dossiers", path: "/dossiers", title: "dossiers.list.title", group: "cases", menu: 50, requires: ["dossier.read"], component: lazyScreen(() => import("./DossiersList.tsx"), "DossiersList") },
  { id: "dossier", path: "/dossiers/:id", title: "dossiers.page.title", requires: ["dossier.read"], component: lazyScreen(() => import("./DossierPage.tsx"), "DossierPage") },
];
