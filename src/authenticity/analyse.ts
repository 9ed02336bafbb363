/**
 * The analysis of one card: every photo's header, the card-level comparisons, the content checks when asked.
 * Deterministic: the same photos and parameters give the same report, byte for byte (no clock, no ids, stable
 * orders), so a second run can be checked against the first by its digest.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
import { cardChecks, dcfName, type CameraView, type CardPhoto, type SequencePoint } from "./card-checks.ts";
import { doubleCompressionCheck, nearDuplicates, thumbnailCheck } from "./content.ts";
import { sortFindings, type Finding, type Severity } from "./findings.ts";
import { readHeader } from "./header.ts";
import { photoChecks } from "./photo-checks.ts";
import type * as contracts from "./contracts.ts";

export interface AnalysisParameters {
  /** Decode pixels: thumbnail against image, double-compression ghosts. */
  content: boolean;
}

export interface PhotoInput {
  sha256: string;
  /** Where the file lay on the card (only its DCF folder number and file name are used, and kept). */
  path: string | null;
  phash: string | null;
  bytes: () => Promise<Uint8Array>;
}

/** One photo as the report lists it (its schema is in contracts.ts). */
export type PhotoSummary = contracts.PhotoSummary;

export interface CardReport {
  photos: PhotoSummary[];
  cameras: CameraView[];
  sequence: SequencePoint[];
  findings: Finding[];
  counts: Record<Severity, number> & { photos: number; flagged: number };
}

export async function analyseCard(inputs: PhotoInput[], params: AnalysisParameters, onProgress?: (done: number, total: number) => void): Promise<CardReport> {
  const sorted = [...inputs].sort((a, b) => a.sha256.localeCompare(b.sha256));
  const photos: CardPhoto[] = [];
  const findings: Finding[] = [];
  let done = 0;
  for (const input of sorted) {
    const bytes = await input.bytes();
    const header = readHeader(bytes);
    const dcf = input.path ? dcfName(input.path) : { name: null, order: null, inCameraCopy: false };
    photos.push({ sha256: input.sha256, ...dcf, header });
    findings.push(...photoChecks(input.sha256, header, dcf.inCameraCopy));
    if (params.content && header.structure.frame && header.structure.problems.length === 0) {
      // A file the decoder refuses (too many pixels, broken data) keeps its header findings; the content
      // checks say nothing rather than guess.
      findings.push(...(await thumbnailCheck(input.sha256, bytes, header).catch(() => [])));
      findings.push(...(await doubleCompressionCheck(input.sha256, bytes, header).catch(() => [])));
    }
    onProgress?.(++done, sorted.length);
  }
  const card = cardChecks(photos);
  findings.push(...card.findings);
  findings.push(...nearDuplicates(sorted.map((s, i) => ({ sha256: s.sha256, phash: s.phash, name: photos[i]!.name }))));
  const all = sortFindings(findings);
  const worst = new Map<string, Severity>();
  const order: Severity[] = ["information", "look", "strong"];
  for (const f of all) if (f.photo && order.indexOf(f.severity) > order.indexOf(worst.get(f.photo) ?? "information")) worst.set(f.photo, f.severity);
  for (const f of all) if (f.photo && !worst.has(f.photo)) worst.set(f.photo, f.severity);
  const summaries = photos.map((p): PhotoSummary => {
    const h = p.header;
    const v = h.layout?.values ?? {};
    return {
      sha256: p.sha256,
      name: p.name,
      camera: cameraLabel(card.cameras, h),
      signature: h.signature,
      quality: h.quality.luma?.quality ?? null,
      qualityExact: h.quality.luma?.exact ?? false,
      huffman: h.huffman,
      subsampling: h.structure.subsampling,
      width: h.structure.frame?.width ?? null,
      height: h.structure.frame?.height ?? null,
      captured: v.captured ?? null,
      modified: v.modified ?? null,
      software: v.software ?? null,
      thumbnail: h.signatureParts.thumbnail,
      trailing: h.structure.trailing,
      worst: worst.get(p.sha256) ?? null,
    };
  });
  const counts = { photos: photos.length, information: 0, look: 0, strong: 0, flagged: 0 };
  for (const f of all) counts[f.severity]++;
  counts.flagged = summaries.filter((s) => s.worst === "look" || s.worst === "strong").length;
  return { photos: summaries, cameras: card.cameras, sequence: card.sequence, findings: all, counts };
}

function cameraLabel(cameras: CameraView[], h: ReturnType<typeof readHeader>): string {
  const v = h.layout?.values ?? {};
  const c = cameras.find((c) => c.make === (v.make ?? null) && c.model === (v.model ?? null) && (c.serial === null || c.serial === (v.serial ?? null)));
  return c?.label ?? "?";
}

/** SHA-256 of the report's canonical JSON: equal for equal analyses. */
export function reportDigest(r: CardReport): string {
  return createHash("sha256").update(canonicalJson(r)).digest("hex");
}
