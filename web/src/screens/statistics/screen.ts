import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** The figures a report quotes, as charts and tables, exportable as CSV, SVG and PNG. */
export const screens: ScreenDef[] = [
  { id: "statistics", path: "/statistics", title: "statistics.title", group: "catalogue", menu: 70, requires: ["catalogue.read"], component: lazyScreen(() => import("./Statistics.tsx"), "Statistics") },
];
