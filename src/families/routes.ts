import type { RegisterRoute } from "../http/app.ts";

/** Families over HTTP: reports, candidates, duplicates and staged disclosure. Thin shells over the use cases. */
export function registerFamiliesRoutes(route: RegisterRoute): void {
  void route;
}
