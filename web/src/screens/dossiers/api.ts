import { api, typedCall, urlOf } from "../../api/client.ts";
import type { PackageList } from "../../api/types/dossiers.ts";
import type { Clearance, DossierSummary, DossierView, ExhibitKind, ExhibitView, VersionSummary } from "../../api/types/dossiers.ts";

/** The dossiers area's calls, typed with the server's views (web/src/api/types/dossiers.ts). */
const none = {} as never;

export const dossiers = {
  list: async () => await typedCall<DossierSummary[]>()("dossiers", none),
  create: async (name: string, description: string) => await typedCall<DossierSummary>()("createDossier", none, { body: description ? { name, description } : { name } }),
  show: async (id: string) => await typedCall<DossierView>()("dossier", { id }),
  versions: async (id: string) => await typedCall<{ dossier: DossierSummary; versions: VersionSummary[] }>()("dossierVersions", { id }),
  addExhibit: async (id: string, kind: ExhibitKind, ref: string, reasoning: string) => await typedCall<ExhibitView>()("addExhibit", { id }, { body: { kind, ref, reasoning } }),
  withdraw: async (id: string, number: string, reason: string) => await typedCall<ExhibitView>()("withdrawExhibit", { id, number }, { body: { reason } }),
  freeze: async (id: string, note: string) => await typedCall<VersionSummary>()("freezeDossier", { id }, { body: note ? { note } : {} }),
  buildPackage: async (id: string, input: { version: number; recipient: string; clearance: Clearance; purpose: string; lang: "ar" | "en" }) =>
    await typedCall<{ job: string }>()("buildPackage", { id }, { body: input }),
  packages: async (id: string) => await typedCall<PackageList>()("packages", { id }),
  job: api.job,
  downloadUrl: (job: string, format: "tar" | "zip") => urlOf("downloadPackage", { job }, { format }),
};
