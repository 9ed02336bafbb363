import { z } from "zod";
import { Sensitivity } from "../access/contracts.ts";
import { ImportProblem } from "../core/contracts.ts";

/**
 * The catalogue module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const SearchHit = z.object({ id: z.string(), ref: z.string(), externalRef: z.string().nullable(), detaineeNo: z.string().nullable(), branchNo: z.string().nullable(), examinerNo: z.string().nullable(), hospital: z.string().nullable(), photoDate: z.string().nullable(), deathDate: z.string().nullable(), sex: z.string().nullable(), ageMin: z.number().nullable(), ageMax: z.number().nullable(), nameAr: z.string().nullable(), nameLat: z.string().nullable(), identificationStatus: z.string(), reviewStatus: z.string(), photos: z.number(), coverPhoto: z.string().nullable(), matchedNumbers: z.array(z.object({ role: z.string(), value: z.string(), checked: z.boolean() })) });
export type SearchHit = z.infer<typeof SearchHit>;

export const FacetBucket = z.object({ value: z.string().nullable(), count: z.number(), labelAr: z.string().optional(), labelEn: z.string().optional() });
export type FacetBucket = z.infer<typeof FacetBucket>;

export const SearchResult = z.object({ total: z.number(), items: z.array(SearchHit), next: z.string().nullable(), facets: z.object({ branch: z.array(FacetBucket).optional(), hospital: z.array(FacetBucket).optional(), period: z.array(FacetBucket).optional(), finding: z.array(FacetBucket).optional(), review: z.array(FacetBucket).optional(), identification: z.array(FacetBucket).optional(), sex: z.array(FacetBucket).optional() }), tokens: z.array(z.string()) });
export type SearchResult = z.infer<typeof SearchResult>;

export const FuzzyDate = z.object({ text: z.string(), earliest: z.string(), latest: z.string() });
export type FuzzyDate = z.infer<typeof FuzzyDate>;

/** `source`: "review" when a settled forensic review recorded the mark; absent when it was entered in the catalogue or imported. */
export const Mark = z.object({ type: z.string(), region: z.string().nullable(), description: z.string(), source: z.literal("review").optional() });
export type Mark = z.infer<typeof Mark>;

export const BodyView = z.object({ id: z.string(), ref: z.string(), refNo: z.number(), externalRef: z.string().nullable(), sourceId: z.string().nullable(), detaineeNo: z.string().nullable(), detaineeNoNorm: z.string().nullable(), branchNo: z.string().nullable(), branchNoNorm: z.string().nullable(), examinerNo: z.string().nullable(), examinerNoNorm: z.string().nullable(), hospital: z.string().nullable(), photoDate: z.string().nullable(), photoMonth: z.string().nullable(), deathDate: FuzzyDate.nullable(), sex: z.enum(["male", "female"]).nullable(), ageMin: z.number().nullable(), ageMax: z.number().nullable(), marks: z.array(Mark), clothing: z.string().nullable(), injuries: z.array(z.string()), reviewFindings: z.array(z.string()), identificationStatus: z.enum(["unidentified", "possible_match", "identified"]), nameAr: z.string().nullable(), nameLat: z.string().nullable(), reviewStatus: z.enum(["unreviewed", "sampled", "in_review", "reviewed", "disputed"]), notes: z.string().nullable(), sensitivity: Sensitivity, mergedInto: z.string().nullable(), version: z.number(), createdAt: z.string(), createdBy: z.string(), updatedAt: z.string() });
export type BodyView = z.infer<typeof BodyView>;

export const GetBodiesAnswer = z.object({ items: z.array(BodyView), next: z.number().nullable() });
export type GetBodiesAnswer = z.infer<typeof GetBodiesAnswer>;

export const BodyPhoto = z.object({ sha256: z.string(), role: z.string(), position: z.number(), captureTime: z.string().nullable(), width: z.number().nullable(), height: z.number().nullable() });
export type BodyPhoto = z.infer<typeof BodyPhoto>;

export const NumberMethod = z.enum(["ocr", "typed"]);
export type NumberMethod = z.infer<typeof NumberMethod>;

export const BodyNumber = z.object({ id: z.string(), bodyId: z.string(), role: z.enum(["branch", "detainee", "examiner"]), value: z.string(), valueNorm: z.string(), sourceSha256: z.string().nullable(), method: NumberMethod, confidence: z.number().nullable(), origin: z.string().nullable(), enteredBy: z.string(), enteredAt: z.string(), checkedBy: z.string().nullable(), checkedAt: z.string().nullable(), retired: z.object({ at: z.string(), by: z.string(), reason: z.string() }).nullable() });
export type BodyNumber = z.infer<typeof BodyNumber>;

export const IdentificationView = z.object({ id: z.string(), bodyId: z.string(), bodyRef: z.string(), reportId: z.string(), reportRef: z.string(), decisionId: z.string(), since: z.string(), by: z.string(), endedAt: z.string().nullable(), endedBy: z.string().nullable() });
export type IdentificationView = z.infer<typeof IdentificationView>;
/** A number or name a document gives for a body: `kind` is the number's role or "name"; `row` the CSV row it came from. */
export const DocumentFact = z.object({ id: z.string(), bodyId: z.string(), source: z.string(), row: z.number(), kind: z.enum(["detainee", "branch", "examiner", "hospital", "name"]), value: z.string(), valueNorm: z.string(), importId: z.string(), importedBy: z.string(), importedAt: z.string() });
export type DocumentFact = z.infer<typeof DocumentFact>;
/** identifications: reports this body was identified as (families' confirmed decisions), the standing one first, then ended ones. */
export const BodyDetail = z.object({ photos: z.array(BodyPhoto), numbers: z.array(BodyNumber), identifications: z.array(IdentificationView), documents: z.array(DocumentFact), id: z.string(), ref: z.string(), refNo: z.number(), externalRef: z.string().nullable(), sourceId: z.string().nullable(), detaineeNo: z.string().nullable(), detaineeNoNorm: z.string().nullable(), branchNo: z.string().nullable(), branchNoNorm: z.string().nullable(), examinerNo: z.string().nullable(), examinerNoNorm: z.string().nullable(), hospital: z.string().nullable(), photoDate: z.string().nullable(), photoMonth: z.string().nullable(), deathDate: FuzzyDate.nullable(), sex: z.enum(["male", "female"]).nullable(), ageMin: z.number().nullable(), ageMax: z.number().nullable(), marks: z.array(Mark), clothing: z.string().nullable(), injuries: z.array(z.string()), reviewFindings: z.array(z.string()), identificationStatus: z.enum(["unidentified", "possible_match", "identified"]), nameAr: z.string().nullable(), nameLat: z.string().nullable(), reviewStatus: z.enum(["unreviewed", "sampled", "in_review", "reviewed", "disputed"]), notes: z.string().nullable(), sensitivity: Sensitivity, mergedInto: z.string().nullable(), version: z.number(), createdAt: z.string(), createdBy: z.string(), updatedAt: z.string() });
export type BodyDetail = z.infer<typeof BodyDetail>;

export const HistoryEntry = z.object({ recordType: z.string(), recordId: z.string(), field: z.string(), old: z.unknown(), new: z.unknown(), actor: z.string(), at: z.string(), eventSeq: z.number() });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const GetBodiesByIdHistoryAnswer = z.array(HistoryEntry);
export type GetBodiesByIdHistoryAnswer = z.infer<typeof GetBodiesByIdHistoryAnswer>;

export const EndKind = z.enum(["body", "entity"]);
export type EndKind = z.infer<typeof EndKind>;

export const Evidence = z.object({ kind: z.enum(["number", "photo", "document", "testimony", "other"]), ref: z.string(), note: z.string().optional() });
export type Evidence = z.infer<typeof Evidence>;

export const LinkView = z.object({ id: z.string(), type: z.string(), from: z.object({ kind: EndKind, id: z.string() }), to: z.object({ kind: EndKind, id: z.string() }), evidence: z.array(Evidence), reasoning: z.string(), confidence: z.enum(["confirmed", "probable", "possible"]), version: z.number(), createdAt: z.string(), createdBy: z.string(), retracted: z.object({ at: z.string(), by: z.string(), reason: z.string() }).nullable() });
export type LinkView = z.infer<typeof LinkView>;

export const GetBodiesByIdLinksAnswer = z.array(LinkView);
export type GetBodiesByIdLinksAnswer = z.infer<typeof GetBodiesByIdLinksAnswer>;

export const PostBodiesByIdSplitAnswer = z.object({ from: BodyDetail, created: BodyDetail });
export type PostBodiesByIdSplitAnswer = z.infer<typeof PostBodiesByIdSplitAnswer>;

export const MergeResult = z.object({ body: BodyDetail, conflicts: z.array(z.object({ field: z.string(), kept: z.unknown(), absorbed: z.unknown() })) });
export type MergeResult = z.infer<typeof MergeResult>;

export const ReadingEvidence = z.object({ region: z.object({ cx: z.number(), cy: z.number(), width: z.number(), height: z.number(), angle: z.number() }), cardScore: z.number(), label: z.string().nullable(), ocrConfidence: z.number() });
export type ReadingEvidence = z.infer<typeof ReadingEvidence>;

export const GetPhotosBySha256ReadingsAnswer = z.array(z.object({ role: z.string(), value: z.string(), confidence: z.number().nullable(), reader: z.string(), readAt: z.string(), evidence: ReadingEvidence.nullable() }));
export type GetPhotosBySha256ReadingsAnswer = z.infer<typeof GetPhotosBySha256ReadingsAnswer>;

export const PostSourcesByIdProposalsAnswer = z.object({ jobId: z.string() });
export type PostSourcesByIdProposalsAnswer = z.infer<typeof PostSourcesByIdProposalsAnswer>;

export const ProposalStatus = z.enum(["proposed", "accepted", "split", "merged", "rejected"]);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

export const ProposalView = z.object({ id: z.string(), sourceId: z.string(), runId: z.string(), position: z.number(), photos: z.array(z.string()), roles: z.record(z.string()), numbers: z.array(z.object({ role: z.enum(["branch", "detainee", "examiner"]), value: z.string(), valueNorm: z.string(), confidence: z.number().nullable(), photo: z.string() })), reasons: z.array(z.object({ code: z.string(), text: z.string() })), score: z.number().nullable(), status: ProposalStatus, parents: z.array(z.string()), bodyId: z.string().nullable(), decidedBy: z.string().nullable(), decidedAt: z.string().nullable(), createdAt: z.string() });
export type ProposalView = z.infer<typeof ProposalView>;

export const GetSourcesByIdProposalsAnswer = z.object({ items: z.array(ProposalView), next: z.number().nullable() });
export type GetSourcesByIdProposalsAnswer = z.infer<typeof GetSourcesByIdProposalsAnswer>;

export const PostProposalsAcceptAnswer = z.object({ bodies: z.array(z.object({ proposalId: z.string(), bodyId: z.string() })) });
export type PostProposalsAcceptAnswer = z.infer<typeof PostProposalsAcceptAnswer>;

export const PostProposalsByIdSplitAnswer = z.array(ProposalView);
export type PostProposalsByIdSplitAnswer = z.infer<typeof PostProposalsByIdSplitAnswer>;

export const EntityView = z.object({ id: z.string(), kind: z.enum(["hospital", "facility", "unit", "person"]), number: z.string().nullable(), numberNorm: z.string().nullable(), nameAr: z.string().nullable(), nameEn: z.string().nullable(), title: z.string().nullable(), governorate: z.string().nullable(), parentId: z.string().nullable(), commanderId: z.string().nullable(), vocabularyCode: z.string().nullable(), description: z.string().nullable(), sensitivity: Sensitivity, version: z.number(), createdAt: z.string(), createdBy: z.string(), updatedAt: z.string() });
export type EntityView = z.infer<typeof EntityView>;

export const GetEntitiesAnswer = z.object({ items: z.array(EntityView), next: z.string().nullable() });
export type GetEntitiesAnswer = z.infer<typeof GetEntitiesAnswer>;

export const EntitySummary = z.object({ id: z.string(), kind: z.enum(["hospital", "facility", "unit", "person"]), number: z.string().nullable(), nameAr: z.string().nullable(), nameEn: z.string().nullable(), title: z.string().nullable() });
export type EntitySummary = z.infer<typeof EntitySummary>;

export const EntityDetail = z.object({ parents: z.array(EntitySummary), commanders: z.array(EntitySummary), id: z.string(), kind: z.enum(["hospital", "facility", "unit", "person"]), number: z.string().nullable(), numberNorm: z.string().nullable(), nameAr: z.string().nullable(), nameEn: z.string().nullable(), title: z.string().nullable(), governorate: z.string().nullable(), parentId: z.string().nullable(), commanderId: z.string().nullable(), vocabularyCode: z.string().nullable(), description: z.string().nullable(), sensitivity: Sensitivity, version: z.number(), createdAt: z.string(), createdBy: z.string(), updatedAt: z.string() });
export type EntityDetail = z.infer<typeof EntityDetail>;

export const GetEntitiesByIdLinksAnswer = z.array(LinkView);
export type GetEntitiesByIdLinksAnswer = z.infer<typeof GetEntitiesByIdLinksAnswer>;

export const Term = z.object({ vocabulary: z.enum(["branch", "hospital", "finding", "governorate", "mark_type", "body_region", "link_type", "photo_role"]), code: z.string(), labelAr: z.string(), labelEn: z.string(), parent: z.string().nullable(), extra: z.record(z.unknown()), sort: z.number(), retired: z.boolean() });
export type Term = z.infer<typeof Term>;

export const GetVocabulariesAnswer = z.array(Term);
export type GetVocabulariesAnswer = z.infer<typeof GetVocabulariesAnswer>;

/** A rejected row of a catalogue import: its sentence in English and as a key the reader's language words. */
export const RejectedRow = ImportProblem;
export type RejectedRow = z.infer<typeof RejectedRow>;

/** `attached`: facts written; `alreadyAttached`: facts the same source had already given the same body (left as they were). */
export const DocumentsImportReport = z.object({ importId: z.string(), ok: z.boolean(), dryRun: z.boolean(), rows: z.number(), attached: z.number(), alreadyAttached: z.number(), bodies: z.number(), rejected: z.array(RejectedRow), sha256: z.string() });
export type DocumentsImportReport = z.infer<typeof DocumentsImportReport>;

export const ImportReport = z.object({ importId: z.string(), ok: z.boolean(), dryRun: z.boolean(), rows: z.number(), created: z.number(), updated: z.number(), unchanged: z.number(), rejected: z.array(RejectedRow), ignoredColumns: z.array(z.string()), sha256: z.string() });
export type ImportReport = z.infer<typeof ImportReport>;

export const StatBucket = z.object({ value: z.string().nullable(), count: z.number().nullable(), labelAr: z.string().optional(), labelEn: z.string().optional() });
export type StatBucket = z.infer<typeof StatBucket>;

export const Statistics = z.object({ generatedAt: z.string(), minCount: z.number(), totals: z.object({ bodies: z.number().nullable(), photos: z.number().nullable(), originals: z.number(), facilities: z.number().nullable(), reviewed: z.number().nullable(), identified: z.number().nullable() }), byBranch: z.array(StatBucket), byHospital: z.array(StatBucket), byPhotoMonth: z.array(StatBucket), byDeathMonth: z.array(StatBucket), byFinding: z.array(StatBucket) });
export type Statistics = z.infer<typeof Statistics>;


// ---- Inputs (decision 0021): what each use case takes, parsed by the use case itself (`parseInput`). A route
// whose body or query is one of these names it with `usecase(...)` (without the fields its path gives); the
// CLI builds the same object. The web app's request types are z.input of these.

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");
const RecordId = z.string().min(1).max(64);
const nullableText = (max: number) => z.string().max(max).nullable().optional();
const SensitivityInput = z.enum(["public", "internal", "restricted", "confidential"]);

export const MarkInput = z
  .object({ type: z.string().max(40), region: z.string().max(40).nullable().optional(), description: z.string().max(500) })
  .strict()
  .transform((m) => ({ type: m.type, region: m.region ?? null, description: m.description }));

/** PUT /api/bodies/:id — the fields a person edits (only those given); numbers change through their own routes. */
export const EditBodyInput = z
  .object({
    id: RecordId,
    /** The version the editor saw; a later change by someone else makes this edit a Conflict. */
    version: z.number().int().optional(),
    externalRef: nullableText(100),
    hospital: nullableText(200),
    photoDate: nullableText(40),
    deathDate: nullableText(80),
    sex: z.enum(["male", "female"]).nullable().optional(),
    ageMin: z.number().int().nullable().optional(),
    ageMax: z.number().int().nullable().optional(),
    marks: z.array(MarkInput).max(50).optional(),
    clothing: nullableText(4000),
    injuries: z.array(z.string().max(100)).max(50).optional(),
    identificationStatus: z.enum(["unidentified", "possible_match", "identified"]).optional(),
    nameAr: nullableText(300),
    nameLat: nullableText(300),
    notes: nullableText(4000),
    sensitivity: SensitivityInput.optional(),
  })
  .strict();

export const SplitBodyInput = z.object({ bodyId: RecordId, photos: z.array(Sha256).min(1).max(500), reason: z.string().max(500).optional() }).strict();
export const MergeBodiesInput = z.object({ keep: RecordId, absorb: RecordId, reason: z.string().max(500).optional() }).strict();
export const SetPhotoRoleInput = z.object({ bodyId: RecordId, sha256: Sha256, role: z.string().min(1).max(40) }).strict();

export const AddNumberInput = z.object({ bodyId: RecordId, role: z.enum(["detainee", "branch", "examiner"]), value: z.string().min(1).max(40), sourceSha256: Sha256.nullable().optional() }).strict();
export const CheckNumberInput = z.object({ numberId: RecordId, agree: z.boolean(), correctedValue: z.string().min(1).max(40).optional() }).strict();
export const RetireNumberInput = z.object({ numberId: RecordId, reason: z.string().min(1).max(500) }).strict();

export const AcceptProposalsInput = z.object({ proposalIds: z.array(z.string().max(64)).min(1).max(2000) }).strict();
export const RejectProposalInput = z.object({ proposalId: RecordId, reason: z.string().max(500).optional() }).strict();
export const SplitProposalInput = z.object({ proposalId: RecordId, parts: z.array(z.array(Sha256).max(500)).min(2).max(50) }).strict();
export const MergeProposalsInput = z.object({ proposalIds: z.array(z.string().max(64)).min(2).max(50) }).strict();

const EntityFields = {
  number: nullableText(40),
  nameAr: nullableText(300),
  nameEn: nullableText(300),
  title: nullableText(300),
  governorate: nullableText(100),
  parentId: z.string().max(64).nullable().optional(),
  commanderId: z.string().max(64).nullable().optional(),
  vocabularyCode: nullableText(100),
  description: nullableText(4000),
  sensitivity: SensitivityInput.optional(),
};
export const NewEntityInput = z.object({ kind: z.enum(["facility", "unit", "hospital", "person"]), ...EntityFields }).strict();
export const UpdateEntityInput = z.object({ id: RecordId, version: z.number().int().optional(), ...EntityFields }).strict();

const LinkEnd = z.object({ kind: z.enum(["body", "entity"]), id: RecordId }).strict();
const EvidenceInput = z.object({ kind: z.enum(["photo", "number", "document", "testimony", "other"]), ref: z.string().min(1).max(500), note: z.string().max(2000).optional() }).strict();
const LinkConfidence = z.enum(["confirmed", "probable", "possible"]);
export const NewLinkInput = z
  .object({ type: z.string().min(1).max(40), from: LinkEnd, to: LinkEnd, evidence: z.array(EvidenceInput).min(1, "A link needs at least one piece of evidence (a photo, a number, a document or a testimony)").max(100), reasoning: z.string().min(1).max(8000), confidence: LinkConfidence.optional() })
  .strict();
export const UpdateLinkInput = z.object({ id: RecordId, evidence: z.array(EvidenceInput).min(1).max(100).optional(), reasoning: z.string().max(8000).optional(), confidence: LinkConfidence.optional(), version: z.number().int().optional() }).strict();
export const RetractLinkInput = z.object({ id: RecordId, reason: z.string().min(1).max(2000) }).strict();

export const AddTermInput = z
  .object({ vocabulary: z.string().max(40), code: z.string().min(1).max(40), labelAr: z.string().min(1).max(300), labelEn: z.string().min(1).max(300), parent: z.string().max(40).nullable().optional(), extra: z.record(z.unknown()).optional() })
  .strict();
export const UpdateTermInput = z
  .object({ vocabulary: z.string().max(40), code: z.string().max(40), labelAr: z.string().max(300).optional(), labelEn: z.string().max(300).optional(), retired: z.boolean().optional(), extra: z.record(z.unknown()).optional() })
  .strict();

export const ImportCsvInput = z.object({ csv: z.string().min(1), dryRun: z.boolean().optional() }).strict();
/** `source`: the document or register the rows were read from, as it should be cited ("Register 601"). */
export const ImportDocumentsInput = z.object({ csv: z.string().min(1), source: z.string().min(1).max(200), dryRun: z.boolean().optional() }).strict();
/** GET /api/photos/:sha256/bodies: the bodies a photograph is filed under, by reference, with their photographs in order. */
export const PhotoBodies = z.object({ bodies: z.array(z.object({ ref: z.string(), photos: z.array(z.string()) })) });
export type PhotoBodies = z.infer<typeof PhotoBodies>;

/** The orders a search can list bodies in. */
export const SORTS = ["ref", "-ref", "photo_date", "-photo_date", "updated", "-updated"] as const;
/** A facet filter: repeated parameters (?branch=215&branch=227), one comma-separated value, or a list. */
const manyValues = z
  .union([z.string().max(2000), z.array(z.string().max(200)).max(50)])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean)));
/**
 * A search (decision 0021: the use case parses it; the route takes it from the query string as sent, the CLI
 * from its options). Periods are months (YYYY-MM) or years (YYYY) of the photo date; a parent finding code
 * (burn) takes its children; `after` is the previous page's `next` cursor; `facets: false` leaves out the counts.
 */
export const SearchInput = z
  .object({
    q: z.string().max(1000).optional(),
    branch: manyValues,
    hospital: manyValues,
    period: manyValues,
    finding: manyValues,
    review: manyValues,
    identification: manyValues,
    sex: manyValues,
    sort: z.enum(SORTS).optional(),
    after: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
    facets: z
      .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
      .optional()
      .transform((v) => (v === undefined || typeof v === "boolean" ? v : v === "true" || v === "1")),
  })
  .strict();
