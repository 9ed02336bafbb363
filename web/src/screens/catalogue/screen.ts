import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** The catalogue: bodies, grouping proposals by intake source, and facilities, units and persons. */
export const screens: ScreenDef[] = [
  { id: "bodies", path: "/bodies", title: "catalogue.bodies.title", group: "catalogue", menu: 30, requires: ["catalogue.read"], component: lazyScreen(() => import("./BodiesList.tsx"), "BodiesList") },
  { id: "body", path: "/bodies/:id", title: "catalogue.body.title", requires: ["catalogue.read"], component: lazyScreen(() => import("./BodyPage.tsx"), "BodyPage") },
  { id: "groupings", path: "/groupings", title: "catalogue.groupings.title", group: "catalogue", menu: 25, requires: ["catalogue.read", "archive.read"], component: lazyScreen(() => import("./Groupings.tsx"), "Groupings") },
  { id: "proposals", path: "/sources/:id/proposals", title: "catalogue.proposals.title", requires: ["catalogue.read", "archive.read"], component: lazyScreen(() => import("./Proposals.tsx"), "Proposals") },
  { id: "entities", path: "/entities", title: "catalogue.entities.title", group: "catalogue", menu: 35, requires: ["catalogue.read"], component: lazyScreen(() => import("./Entities.tsx"), "Entities") },
  { id: "entity", path: "/entities/:id", title: "catalogue.entities.one", requires: ["catalogue.read"], component: lazyScreen(() => import("./EntityPage.tsx"), "EntityPage") },
];
