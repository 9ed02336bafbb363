import { api, callJson, urlOf } from "../../api/client.ts";
import type { Clearance, DossierSummary, DossierView, ExhibitKind, ExhibitView, VersionSummary } from "../../api/types/dossiers.ts";

/** The dossiers area's calls, typed with the server's views (web/src/api/types/dossiers.ts). */
const none = {} as never;

export const dossiers = {
  list: async () => (await callJson("dossiers", none)) as DossierSummary[],
  create: async (name: string, description: string) => (await callJson("createDossier", none, { body: description ? { name, description } : { name } })) as DossierSummary,
  show: async (id: string) => (await callJson("dossier", { id })) as DossierView,
  versions: async (id: string) => (await callJson("dossierVersions", { id })) as { dossier: DossierSummary; versions: VersionSummary[] },
  addExhibit: async (id: string, kind: ExhibitKind, ref: string, reasoning: string) => (await callJson("addExhibit", { id }, { body: { kind, ref, reasoning } })) as ExhibitView,
  withdraw: async (id: string, number: string, reason: string) => (await callJson("withdrawExhibit", { id, number }, { body: { reason } })) as ExhibitView,
  freeze: async (id: string, note: string) => (await callJson("freezeDossier", { id }, { body: note ? { note } : {} })) as VersionSummary,
  buildPackage: async (id: string, input: { version: number; recipient: string; clearance: Clearance; purpose: string; lang: "ar" | "en" }) =>
    (await callJson("buildPackage", { id }, { body: input })) as { job: string },
  job: api.job,
  downloadUrl: (job: string, format: "tar" | "zip") => urlOf("downloadPackage", { job }, { format }),
};
