/**
 * The archive module: intake of cards, the originals and their renditions, the blob store, fixity and coverage,
 * reveals and downloads of originals, master key rotation, and sealing a source's identity. Other modules
 * import this file only.
 */
export { ingestCard, assertIngestable, type IngestInput, type IngestSummary, type IngestProgress } from "./intake.ts";
export { getOriginal, getOriginals, listOriginals, type OriginalView, type ListOriginals } from "./originals.ts";
export { BLURRED, galleryPage, type GalleryFilter, type GalleryRestriction, type GalleryPage } from "./viewing.ts";
export { revealOriginal, downloadOriginal, REVEAL_SECONDS, type RevealOriginal, type RevealGrant } from "./reveals.ts";
export { rotateMasterKey, type MasterRotation } from "./key-rotation.ts";
export { sealIdentity } from "./sealing.ts";
export { sourceExists, originalFacts, originalFact, preservedOriginals, countPreserved, renditionOf, sourcesNamed, sourceLabels, sightedOriginals, sourcesOfOriginal, type OriginalFacts } from "./facts.ts";
export { auditFixity, type FixityReport, type Finding } from "./fixity.ts";
export { coverageFindings } from "./coverage.ts";
export { recordsFromLog } from "./restore-records.ts";
export { registerArchiveJobs, queueFixityAudit, JOB_FIXITY_AUDIT, JOB_INGEST, JOB_RENDITIONS } from "./jobs.ts";
export { getJob, listJobs, type ListJobs } from "./job-views.ts";
export { listSources, type SourceView } from "./sources.ts";
export { hammingDistance, perceptualHash } from "./media/phash.ts";
export { openBlobStore, openS3Objects, loadOrCreateBlobKeys, generateKey, type BlobStore } from "./blobs/index.ts";
export { layout as blobLayout } from "./blobs/format.ts";
export { writeDemoCard, type DemoCardTruth } from "./demo-card/index.ts";
