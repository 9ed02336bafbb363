import type { RegisterRoute } from "../http/app.ts";

/** The statistics a report quotes (bodies, photos, facilities; by branch, hospital, month, finding) over HTTP. */
export function registerStatisticsRoutes(route: RegisterRoute): void {
  void route;
}
