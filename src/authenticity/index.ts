/**
 * The authenticity module: whether the photos of a card are what they claim to be, told from their JPEG
 * headers (structure, tables, EXIF layout), their sequence per camera and their content (thumbnail, double
 * compression, near-duplicates). Other modules use only what is exported here.
 */
export { analyseCard, reportDigest, type AnalysisParameters, type CardReport, type PhotoInput, type PhotoSummary } from "./analyse.ts";
export { parseJpeg, type JpegStructure } from "./jpeg.ts";
export { readHeader, type PhotoHeader } from "./header.ts";
export { errorLevelMap } from "./content.ts";
export { SEVERITIES, type Finding, type Severity } from "./findings.ts";
export { reportText } from "./report-text.ts";
export { MESSAGES, wordFinding, type MessageKey, type Lang } from "./messages.ts";
export { runAuthenticity, showAuthenticity, listAuthenticityRuns, photoAuthenticity, errorLevel, inputDigest, type RunView, type PhotoAuthenticity } from "./runs.ts";
export { registerAuthenticityJobs, enqueueAuthenticity, JOB_AUTHENTICITY } from "./jobs.ts";
