import type { NumberRole } from "./numbers.ts";
import type * as contracts from "./contracts.ts";

/**
 * What proposing needs from the pure OCR and grouping code: read the numbers on a photo's paper card, and
 * group a source's photos into bodies. The use cases (proposals.ts) depend only on this interface, so tests can
 * drive them with a scripted engine and the OCR can improve without touching storage.
 */
export interface CardReading {
  role: NumberRole;
  /** As read: may be in Arabic-Indic digits, may carry a letter ("1234/ب"). */
  value: string;
  confidence: number | null;
  /** What the reading rests on: the card's region in the photo and the line the number was read from. */
  evidence?: ReadingEvidence;
}

/** The evidence of one number: the card found in the photo, and the label and OCR confidence of its line. */
export type ReadingEvidence = contracts.ReadingEvidence;

export interface PhotoForGrouping {
  sha256: string;
  /** RFC 3339 with offset, from EXIF; null when the photo carries none. */
  captureTime: string | null;
  /**
   * The file's path on the medium (DCIM/100NCD90/DSC_0123.JPG): the camera's folder and file sequence live
   * there. Sensitive metadata: used for ordering in-process, never stored with a proposal.
   */
  path: string | null;
  phash: string | null;
  width: number | null;
  height: number | null;
  /** What the reader found on this photo's card (empty: no card, or unreadable). */
  readings: CardReading[];
}

export interface ProposedGroup {
  /** SHA-256 of the photos, in the order they should be shown (capture order). */
  photos: string[];
  /** Photo role per SHA-256 (card | face | full | detail | other), where the grouper knows it. */
  roles?: Record<string, string>;
  /** The numbers the group's cards give, each with the photo it was read from. */
  numbers: (CardReading & { photo: string })[];
  /** Why these photos belong together, for the investigator: e.g. { code: "same-card", text: "…" }. */
  reasons: { code: string; text: string }[];
  /** 0..1: how sure the grouper is. */
  score: number | null;
}

export interface CatalogueEngine {
  /** Names the reader and its version in stored readings (e.g. "dalil-card-reader/1 + tesseract.js 7"). */
  readonly readerName: string;
  /** The numbers on the photo's card; null when the engine does no OCR. */
  readCard(image: Buffer, sha256: string): Promise<CardReading[]>;
  group(photos: PhotoForGrouping[]): ProposedGroup[] | Promise<ProposedGroup[]>;
  close(): Promise<void>;
}

/**
 * The engine the archive uses, built from src/catalogue/ocr.ts and grouping.ts. Loaded on first use: Tesseract
 * and its language data are heavy and most processes (a server answering searches) never need them.
 */
export async function loadDefaultEngine(): Promise<CatalogueEngine> {
  // Lazy: Tesseract and its language data load only when an engine is first asked for (see above).
  const { defaultEngine } = await import("./engine-default.ts");
  return defaultEngine();
}
