/**
 * OUT/truth.json: what a demo card holds, for tests and benchmarks to check the archive against. Numbers are
 * in Latin digits whatever the card shows (`digits` says how they were written). Version 1.
 */
export type DigitForm = "latin" | "arabic-indic";
export type PhotoKind = "original" | "exact-duplicate" | "near-duplicate";
export type FaultExpectation = "quarantine" | "preserve";

export interface TruthCamera {
  make: string;
  model: string;
  serial: string;
  software: string;
  /** EXIF Artist and CameraOwnerName: pseudonymous, but the kind of field that can reveal a source. */
  artist: string;
}

export interface TruthBody {
  ref: string;
  detainee_no: string;
  branch_no: string;
  /** Digits, optionally "/" and one Arabic letter, e.g. "1234/ب". */
  examiner_no: string;
  digits: DigitForm;
  hospital: string;
  /** Local date of the body's first photo, YYYY-MM-DD. */
  photo_date: string;
  sex: "male" | "female";
  age_min: number;
  age_max: number;
  marks: string[];
  /** Every file on the card that shows this body: originals first, then copies. */
  photos: string[];
}

export interface TruthPhoto {
  path: string;
  body: string;
  kind: PhotoKind;
  duplicate_of?: string;
  /** How it was derived, for near duplicates: "recompressed" (CSC_) or "small" (SSC_, 640 px). */
  variant?: "recompressed" | "small";
  sha256: string;
  bytes: number;
  /** DateTimeOriginal with its offset, RFC 3339. Copies carry their original's. */
  capture_time: string;
  /** Size as displayed, after the EXIF orientation is applied. */
  width: number;
  height: number;
  orientation: 1 | 6 | 8;
}

export interface TruthFault {
  path: string;
  fault: string;
  expect: FaultExpectation;
  reason: string;
  /** What the bytes really are, whatever the name says. */
  format: string;
  sha256: string;
  bytes: number;
}

/** A photo changed after the camera wrote it (anomalies.ts), and the authenticity finding it must raise. */
export interface TruthAnomaly {
  path: string;
  anomaly: string;
  /** The message key of the finding (src/authenticity/messages.ts) that names the change. */
  expect: string;
  detail: string;
  sha256: string;
}

export interface DemoCardTruth {
  version: 1;
  seed: string;
  start_date: string;
  files_per_folder: number;
  camera: TruthCamera;
  bodies: TruthBody[];
  photos: TruthPhoto[];
  faults: TruthFault[];
  /** Present when the card was written with planted anomalies (`withAnomalies`). */
  anomalies?: TruthAnomaly[];
}
