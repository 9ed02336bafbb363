/** The authenticity views the server answers (src/authenticity/analyse.ts, runs.ts). */
export type Severity = "information" | "look" | "strong";

export interface Finding {
  photo: string | null;
  check: string;
  severity: Severity;
  key: string;
  params: Record<string, string | number>;
}

export interface SignatureParts {
  tables: string;
  huffman: string;
  subsampling: string;
  frame: string;
  thumbnail: string;
  ifds: string;
  makerNote: string;
  apps: string;
}

export interface CameraView {
  label: string;
  make: string | null;
  model: string | null;
  serial: string | null;
  photos: number;
  signatures: { signature: string; photos: number; parts: SignatureParts; ijgQuality: number | null }[];
}

export interface SequencePoint {
  photo: string;
  camera: string;
  name: string | null;
  order: number;
  captured: string | null;
}

export interface PhotoSummary {
  sha256: string;
  name: string | null;
  camera: string;
  signature: string;
  quality: number | null;
  qualityExact: boolean;
  huffman: "standard" | "optimised" | "none";
  subsampling: string | null;
  width: number | null;
  height: number | null;
  captured: string | null;
  modified: string | null;
  software: string | null;
  thumbnail: string;
  trailing: number;
  worst: Severity | null;
}

export interface CardReport {
  photos: PhotoSummary[];
  cameras: CameraView[];
  sequence: SequencePoint[];
  findings: Finding[];
  counts: Record<Severity, number> & { photos: number; flagged: number };
}

export interface RunView {
  run: string;
  source: { id: string; label: string };
  softwareVersion: string;
  parameters: { content: boolean };
  inputSha256: string;
  reportSha256: string;
  runBy: string;
  runAt: string;
  eventSeq: number;
  report: CardReport;
}

export interface RunSummary {
  run: string;
  source: { id: string; label: string };
  photos: number;
  flagged: number;
  runAt: string;
  softwareVersion: string;
}

export interface PhotoAuthenticity {
  sha256: string;
  run: string | null;
  source: { id: string; label: string } | null;
  runAt: string | null;
  summary: PhotoSummary | null;
  findings: Finding[];
}
