import { api, callJson } from "../../api/client.ts";
import type {
  BodyDetail,
  BodyEdit,
  BodyNumber,
  BodyView,
  EntityDetail,
  EntityFields,
  EntityKind,
  EntityView,
  HistoryEntry,
  LinkView,
  MergeResult,
  NewLink,
  NumberRole,
  Page,
  ProposalStatus,
  ProposalView,
  Term,
} from "../../api/types/catalogue.ts";

/** The catalogue's calls, typed with the server's views (web/src/api/types/catalogue.ts). */
const none = {} as never;

export const catalogue = {
  bodies: async (after?: number, limit = 50) => (await callJson("bodies", none, { query: { after, limit } })) as Page<BodyView, number>,
  body: async (id: string) => (await callJson("body", { id })) as BodyDetail,
  editBody: async (id: string, patch: BodyEdit) => (await callJson("editBody", { id }, { body: patch })) as BodyView,
  history: async (id: string) => (await callJson("bodyHistory", { id })) as HistoryEntry[],
  bodyLinks: async (id: string) => (await callJson("bodyLinks", { id }, { query: { retracted: "true" } })) as LinkView[],
  splitBody: async (id: string, photos: string[], reason?: string) =>
    (await callJson("splitBody", { id }, { body: reason ? { photos, reason } : { photos } })) as { from: BodyDetail; created: BodyDetail },
  mergeBodies: async (keep: string, absorb: string, reason?: string) =>
    (await callJson("mergeBodies", none, { body: reason ? { keep, absorb, reason } : { keep, absorb } })) as MergeResult,
  setPhotoRole: async (id: string, sha256: string, role: string) => (await callJson("setPhotoRole", { id, sha256 }, { body: { role } })) as BodyDetail,
  addNumber: async (id: string, role: NumberRole, value: string, sourceSha256: string | null) =>
    (await callJson("addNumber", { id }, { body: { role, value, sourceSha256 } })) as BodyNumber,
  checkNumber: async (id: string, agree: boolean, correctedValue?: string) =>
    (await callJson("checkNumber", { id }, { body: correctedValue ? { agree, correctedValue } : { agree } })) as BodyNumber,
  retireNumber: async (id: string, reason: string) => (await callJson("retireNumber", { id }, { body: { reason } })) as BodyNumber,
  readings: async (sha256: string) =>
    (await callJson("photoReadings", { sha256 })) as { role: string; value: string; confidence: number | null; reader: string; readAt: string }[],

  propose: async (sourceId: string) => (await callJson("proposeGroupings", { id: sourceId })) as { jobId: string },
  proposals: async (sourceId: string, status: ProposalStatus | undefined, after?: number, limit = 50) =>
    (await callJson("proposals", { id: sourceId }, { query: { status, after, limit } })) as Page<ProposalView, number>,
  accept: async (id: string) => (await callJson("acceptProposal", { id })) as BodyDetail,
  reject: async (id: string, reason?: string) => (await callJson("rejectProposal", { id }, { body: reason ? { reason } : {} })) as ProposalView,
  splitProposal: async (id: string, parts: string[][]) => (await callJson("splitProposal", { id }, { body: { parts } })) as ProposalView[],
  mergeProposals: async (proposalIds: string[]) => (await callJson("mergeProposals", none, { body: { proposalIds } })) as ProposalView,

  entities: async (kind: EntityKind | undefined, q: string | undefined, after?: string, limit = 50) =>
    (await callJson("entities", none, { query: { kind, q: q || undefined, after, limit } })) as Page<EntityView, string>,
  createEntity: async (input: EntityFields & { kind: EntityKind }) => (await callJson("createEntity", none, { body: input })) as EntityView,
  entity: async (id: string) => (await callJson("entity", { id })) as EntityDetail,
  editEntity: async (id: string, patch: EntityFields & { version?: number }) => (await callJson("editEntity", { id }, { body: patch })) as EntityView,
  entityLinks: async (id: string) => (await callJson("entityLinks", { id })) as LinkView[],
  createLink: async (link: NewLink) => (await callJson("createLink", none, { body: link })) as LinkView,
  retractLink: async (id: string, reason: string) => (await callJson("retractLink", { id }, { body: { reason } })) as LinkView,

  vocabulary: async (vocabulary: string) => (await callJson("vocabulary", none, { query: { vocabulary } })) as Term[],
  blurredUrl: api.blurredUrl,
};
