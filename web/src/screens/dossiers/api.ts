import { api, typedCall, urlOf } from "../../api/client.ts";
import type { ExhibitKind, NewPackage } from "../../api/types/dossiers.ts";

/** The dossiers area's calls, typed with the server's views (web/src/api/types/dossiers.ts). */
const none = {} as never;

export const dossiers = {
  list: async () => await typedCall("dossiers", none),
  create: async (name: string, description: string) => await typedCall("createDossier", none, { body: description ? { name, description } : { name } }),
  show: async (id: string) => await typedCall("dossier", { id }),
  versions: async (id: string) => await typedCall("dossierVersions", { id }),
  addExhibit: async (id: string, kind: ExhibitKind, ref: string, reasoning: string) => await typedCall("addExhibit", { id }, { body: { kind, ref, reasoning } }),
  withdraw: async (id: string, number: string, reason: string) => await typedCall("withdrawExhibit", { id, number }, { body: { reason } }),
  freeze: async (id: string, note: string) => await typedCall("freezeDossier", { id }, { body: note ? { note } : {} }),
  buildPackage: async (id: string, input: NewPackage) =>
    await typedCall("buildPackage", { id }, { body: input }),
  packages: async (id: string) => await typedCall("packages", { id }),
  job: api.job,
  downloadUrl: (job: string, format: "tar" | "zip") => urlOf("downloadPackage", { job }, { format }),
};
