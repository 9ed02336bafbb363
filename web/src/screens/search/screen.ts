import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** Search over the body records: one box, facets with counts, shareable URLs. */
export const screens: ScreenDef[] = [{ id: "search", path: "/search", title: "search.title", group: "catalogue", menu: 28, requires: ["catalogue.read"], component: lazyScreen(() => import("./Search.tsx"), "Search") }];
