import type { RegisterRoute } from "../http/app.ts";

/** Dossiers over HTTP: cases, exhibits, versions, reports and packages. Thin shells over the use cases. */
export function registerDossierRoutes(route: RegisterRoute): void {
  void route;
}
