import { api, typedCall } from "../../api/client.ts";
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
  PhotoBodies,
  ProposalStatus,
  ProposalView,
  Term,
} from "../../api/types/catalogue.ts";

/** The catalogue's calls, typed with the server's views (web/src/api/types/catalogue.ts). */
const none = {} as never;

export const catalogue = {
  bodies: async (after?: number, limit = 50) => await typedCall<Page<BodyView, number>>()("bodies", none, { query: { after, limit } }),
  body: async (id: string) => await typedCall<BodyDetail>()("body", { id }),
  editBody: async (id: string, patch: BodyEdit) => await typedCall<BodyView>()("editBody", { id }, { body: patch }),
  history: async (id: string) => await typedCall<HistoryEntry[]>()("bodyHistory", { id }),
  bodyLinks: async (id: string) => await typedCall<LinkView[]>()("bodyLinks", { id }, { query: { retracted: "true" } }),
  splitBody: async (id: string, photos: string[], reason?: string) =>
    await typedCall<{ from: BodyDetail; created: BodyDetail }>()("splitBody", { id }, { body: reason ? { photos, reason } : { photos } }),
  mergeBodies: async (keep: string, absorb: string, reason?: string) =>
    await typedCall<MergeResult>()("mergeBodies", none, { body: reason ? { keep, absorb, reason } : { keep, absorb } }),
  setPhotoRole: async (id: string, sha256: string, role: string) => await typedCall<BodyDetail>()("setPhotoRole", { id, sha256 }, { body: { role } }),
  addNumber: async (id: string, role: NumberRole, value: string, sourceSha256: string | null) =>
    await typedCall<BodyNumber>()("addNumber", { id }, { body: { role, value, sourceSha256 } }),
  checkNumber: async (id: string, agree: boolean, correctedValue?: string) =>
    await typedCall<BodyNumber>()("checkNumber", { id }, { body: correctedValue ? { agree, correctedValue } : { agree } }),
  retireNumber: async (id: string, reason: string) => await typedCall<BodyNumber>()("retireNumber", { id }, { body: { reason } }),
  readings: async (sha256: string) =>
    await typedCall<{ role: string; value: string; confidence: number | null; reader: string; readAt: string }[]>()("photoReadings", { sha256 }),

  photoBodies: async (sha256: string) => await typedCall<PhotoBodies>()("photoBodies", { sha256 }),

  propose: async (sourceId: string) => await typedCall<{ jobId: string }>()("proposeGroupings", { id: sourceId }),
  proposals: async (sourceId: string, status: ProposalStatus | undefined, after?: number, limit = 50) =>
    await typedCall<Page<ProposalView, number>>()("proposals", { id: sourceId }, { query: { status, after, limit } }),
  accept: async (id: string) => await typedCall<BodyDetail>()("acceptProposal", { id }),
  reject: async (id: string, reason?: string) => await typedCall<ProposalView>()("rejectProposal", { id }, { body: reason ? { reason } : {} }),
  splitProposal: async (id: string, parts: string[][]) => await typedCall<ProposalView[]>()("splitProposal", { id }, { body: { parts } }),
  mergeProposals: async (proposalIds: string[]) => await typedCall<ProposalView>()("mergeProposals", none, { body: { proposalIds } }),

  entities: async (kind: EntityKind | undefined, q: string | undefined, after?: string, limit = 50) =>
    await typedCall<Page<EntityView, string>>()("entities", none, { query: { kind, q: q || undefined, after, limit } }),
  createEntity: async (input: EntityFields & { kind: EntityKind }) => await typedCall<EntityView>()("createEntity", none, { body: input }),
  entity: async (id: string) => await typedCall<EntityDetail>()("entity", { id }),
  editEntity: async (id: string, patch: EntityFields & { version?: number }) => await typedCall<EntityView>()("editEntity", { id }, { body: patch }),
  entityLinks: async (id: string) => await typedCall<LinkView[]>()("entityLinks", { id }),
  createLink: async (link: NewLink) => await typedCall<LinkView>()("createLink", none, { body: link }),
  retractLink: async (id: string, reason: string) => await typedCall<LinkView>()("retractLink", { id }, { body: { reason } }),

  vocabulary: async (vocabulary: string) => await typedCall<Term[]>()("vocabulary", none, { query: { vocabulary } }),
  blurredUrl: api.blurredUrl,
};
