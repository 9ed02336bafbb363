import { api, typedCall } from "../../api/client.ts";
import type { BodyEdit, EntityFields, EntityKind, NewLink, NumberRole, ProposalStatus } from "../../api/types/catalogue.ts";

/** The catalogue's calls, typed with the server's views (web/src/api/types/catalogue.ts). */
const none = {} as never;

export const catalogue = {
  bodies: async (after?: number, limit = 50) => await typedCall("bodies", none, { query: { after, limit } }),
  body: async (id: string) => await typedCall("body", { id }),
  editBody: async (id: string, patch: BodyEdit) => await typedCall("editBody", { id }, { body: patch }),
  history: async (id: string) => await typedCall("bodyHistory", { id }),
  bodyLinks: async (id: string) => await typedCall("bodyLinks", { id }, { query: { retracted: "true" } }),
  splitBody: async (id: string, photos: string[], reason?: string) =>
    await typedCall("splitBody", { id }, { body: reason ? { photos, reason } : { photos } }),
  mergeBodies: async (keep: string, absorb: string, reason?: string) =>
    await typedCall("mergeBodies", none, { body: reason ? { keep, absorb, reason } : { keep, absorb } }),
  setPhotoRole: async (id: string, sha256: string, role: string) => await typedCall("setPhotoRole", { id, sha256 }, { body: { role } }),
  addNumber: async (id: string, role: NumberRole, value: string, sourceSha256: string | null) =>
    await typedCall("addNumber", { id }, { body: { role, value, sourceSha256 } }),
  checkNumber: async (id: string, agree: boolean, correctedValue?: string) =>
    await typedCall("checkNumber", { id }, { body: correctedValue ? { agree, correctedValue } : { agree } }),
  retireNumber: async (id: string, reason: string) => await typedCall("retireNumber", { id }, { body: { reason } }),
  readings: async (sha256: string) =>
    await typedCall("photoReadings", { sha256 }),

  photoBodies: async (sha256: string) => await typedCall("photoBodies", { sha256 }),

  propose: async (sourceId: string) => await typedCall("proposeGroupings", { id: sourceId }),
  proposals: async (sourceId: string, status: ProposalStatus | undefined, after?: number, limit = 50) =>
    await typedCall("proposals", { id: sourceId }, { query: { status, after, limit } }),
  accept: async (id: string) => await typedCall("acceptProposal", { id }),
  reject: async (id: string, reason?: string) => await typedCall("rejectProposal", { id }, { body: reason ? { reason } : {} }),
  splitProposal: async (id: string, parts: string[][]) => await typedCall("splitProposal", { id }, { body: { parts } }),
  mergeProposals: async (proposalIds: string[]) => await typedCall("mergeProposals", none, { body: { proposalIds } }),

  entities: async (kind: EntityKind | undefined, q: string | undefined, after?: string, limit = 50) =>
    await typedCall("entities", none, { query: { kind, q: q || undefined, after, limit } }),
  createEntity: async (input: EntityFields & { kind: EntityKind }) => await typedCall("createEntity", none, { body: input }),
  entity: async (id: string) => await typedCall("entity", { id }),
  editEntity: async (id: string, patch: EntityFields & { version?: number }) => await typedCall("editEntity", { id }, { body: patch }),
  entityLinks: async (id: string) => await typedCall("entityLinks", { id }),
  createLink: async (link: NewLink) => await typedCall("createLink", none, { body: link }),
  retractLink: async (id: string, reason: string) => await typedCall("retractLink", { id }, { body: { reason } }),

  vocabulary: async (vocabulary: string) => await typedCall("vocabulary", none, { query: { vocabulary } }),
  blurredUrl: api.blurredUrl,
};
