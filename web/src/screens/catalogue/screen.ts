import type { ScreenDef } from "../../app/screens.ts";
import { BodiesList } from "./BodiesList.tsx";
import { BodyPage } from "./BodyPage.tsx";
import { Groupings } from "./Groupings.tsx";
import { Proposals } from "./Proposals.tsx";
import { Entities } from "./Entities.tsx";
import { EntityPage } from "./EntityPage.tsx";

/** The catalogue: bodies, grouping proposals by intake source, and facilities, units and persons. */
export const screens: ScreenDef[] = [
  { id: "bodies", path: "/bodies", title: "catalogue.bodies.title", group: "catalogue", menu: 30, requires: ["catalogue.read"], component: BodiesList },
  { id: "body", path: "/bodies/:id", title: "catalogue.body.title", requires: ["catalogue.read"], component: BodyPage },
  { id: "groupings", path: "/groupings", title: "catalogue.groupings.title", group: "catalogue", menu: 25, requires: ["catalogue.read", "archive.read"], component: Groupings },
  { id: "proposals", path: "/sources/:id/proposals", title: "catalogue.proposals.title", requires: ["catalogue.read", "archive.read"], component: Proposals },
  { id: "entities", path: "/entities", title: "catalogue.entities.title", group: "catalogue", menu: 35, requires: ["catalogue.read"], component: Entities },
  { id: "entity", path: "/entities/:id", title: "catalogue.entities.one", requires: ["catalogue.read"], component: EntityPage },
];
