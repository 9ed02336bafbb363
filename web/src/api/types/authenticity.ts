import type * as server from "../../../../src/authenticity/contracts.ts";
/** The authenticity views the server answers (src/authenticity/contracts.ts; use cases in runs.ts, analyse.ts). */
export type Severity = server.Severity;
export type Check = server.Check;
export type Finding = server.Finding;
export type SignatureParts = server.SignatureParts;
export type CameraView = server.CameraView;
export type SequencePoint = server.SequencePoint;
export type PhotoSummary = server.PhotoSummary;
export type CardReport = server.CardReport;
export type RunView = server.RunView;
export type RunSummary = server.RunSummary;
export type PhotoAuthenticity = server.PhotoAuthenticity;
export type QueuedAnalysis = server.QueuedAnalysis;
