/**
 * The catalogue module: bodies grouped from photos, their numbers, grouping proposals, entities and links with
 * evidence, controlled vocabularies, per-field history, search, CSV import/export. Other modules use only what
 * is exported here.
 *
 * For other modules, in their own transaction (they ask the policy first):
 * - review (src/review): `updateBodyInTx(ctx, tx, actor, bodyId, { reviewStatus, reviewFindings }, { action })`
 * - families (src/families): `readBodies` for matching; `identifyBodyInTx` when a caseworker confirms that a body is
 *   a report's person, `reverseIdentificationInTx` when that decision changes, `moveIdentificationToReportInTx`
 *   when the report is merged into another (identifications.ts).
 */
export {
  getBody,
  readBodies,
  editBody,
  splitBody,
  mergeBodies,
  setPhotoRole,
  updateBodyInTx,
  createBodyInTx,
  findBodyRow,
  visibleSensitivities,
  bodiesHiddenFrom,
  photosHiddenFrom,
  photosOfBodies,
  bodiesOfPhoto,
  EDITABLE_FIELDS,
  type BodyView,
  type BodyDetail,
  type BodyPhoto,
  type BodyPatch,
  type SystemBodyPatch,
  type NewBody,
  type EditBody,
  type ReadBodies,
  type SplitBody,
  type MergeBodies,
  type MergeResult,
  type UpdateOptions,
} from "./bodies.ts";
export { identifyBodyInTx, reverseIdentificationInTx, moveIdentificationToReportInTx, identificationsOf, type IdentificationView, type IdentifyBody } from "./identifications.ts";
export {
  addNumber,
  checkNumber,
  retireNumber,
  normaliseNumber,
  NUMBER_ROLES,
  type BodyNumber,
  type NumberRole,
  type NumberMethod,
  type AddNumber,
  type CheckNumber,
} from "./numbers.ts";
export {
  proposeGroupings,
  runProposals,
  listProposals,
  getProposal,
  acceptProposal,
  acceptProposals,
  rejectProposal,
  splitProposal,
  mergeProposals,
  readingsOf,
  registerCatalogueJobs,
  JOB_PROPOSE,
  type ProposalView,
  type ProposalStatus,
  type ProposalRun,
  type RunProposals,
} from "./proposals.ts";
export type { CatalogueEngine, CardReading, PhotoForGrouping, ProposedGroup } from "./engine.ts";
export { createEntity, updateEntity, getEntity, listEntities, type EntityView, type EntityDetail, type EntitySummary, type NewEntity, type EntityFields } from "./entities.ts";
export { createLink, updateLink, retractLink, linksOf, type LinkView, type NewLink, type Evidence, type EndKind } from "./links.ts";
export {
  listVocabulary,
  addVocabularyTerm,
  updateVocabularyTerm,
  Vocabularies,
  VOCABULARY_NAMES,
  type Term,
  type VocabularyName,
  type AddTerm,
  type UpdateTerm,
} from "./vocabularies.ts";
export { recordHistory, verifyHistory, type HistoryEntry, type Change } from "./history.ts";
export { searchBodies, FACETS, SORTS, type SearchQuery, type SearchResult, type SearchHit, type FacetBucket, type FacetName, type SortKey } from "./search.ts";
export { importBodiesCsv, exportBodiesCsv, IMPORT_COLUMNS, EXPORT_COLUMNS, type ImportReport, type RejectedRow } from "./csv-import.ts";
export { importBodyDocuments, readBodyDocuments, DOCUMENT_KINDS, DOCUMENT_COLUMNS, type DocumentFact, type DocumentKind, type DocumentsImportReport, type ImportDocuments } from "./documents.ts";
export { parseFuzzyDate, monthOf, type FuzzyDate } from "./dates.ts";
export { parseMarks, formatMarks, type Mark } from "./marks.ts";
export { parseCsv, writeCsv, type CsvTable } from "./csv.ts";
export {
  SEXES,
  IDENTIFICATION_STATUSES,
  REVIEW_STATUSES,
  ENTITY_KINDS,
  LINK_CONFIDENCES,
  EVIDENCE_KINDS,
  resourceOf,
  type Sex,
  type IdentificationStatus,
  type ReviewStatus,
  type EntityKind,
  type LinkConfidence,
  type EvidenceKind,
} from "./records.ts";
export { bodiesStamp } from "./facet-index.ts";
export { catalogueWork, type CatalogueWork } from "./work.ts";
export { photoGallery, photoBodies, GALLERY_BODY_FILTERS, GALLERY_NUMBER_FILTERS, type PhotoGalleryQuery } from "./gallery.ts";
export { publishableBreakdown, STATISTIC_BREAKDOWNS, PUBLIC_MIN_COUNT, IMPRECISE, type Breakdown, type StatBucket } from "./statistics.ts";
