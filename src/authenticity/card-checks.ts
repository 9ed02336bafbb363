/**
 * The checks that compare a photo with the rest of its card: which cameras (make, model, serial) and which
 * header signatures the card holds, a photo whose signature no other photo of its camera shares, and the
 * sequence each camera wrote (capture time against file number: time going back, repeats, gaps).
 */
import type { PhotoHeader } from "./header.ts";
import { finding, type Finding } from "./findings.ts";
import type * as contracts from "./contracts.ts";

export interface CardPhoto {
  sha256: string;
  /** DCF file name without extension ("DSC_0012"), or null when the name is not a camera's. */
  name: string | null;
  /** Folder number × 10000 + file number: the order the camera wrote the files in. */
  order: number | null;
  /** A copy the camera's own retouch menu made (CSC_, SSC_): re-dated and re-encoded by the camera. */
  inCameraCopy: boolean;
  header: PhotoHeader;
}

/** A camera of the card, named C1, C2 … by number of photos (the serial is sensitive); schema in contracts.ts. */
export type CameraView = contracts.CameraView;

export type SequencePoint = contracts.SequencePoint;

/** Share of a camera's photos one signature must hold to count as that camera's own. */
const DOMINANT_SHARE = 0.6;
/** Fewer photos than this and a camera has no "usual" to compare with. */
const MIN_GROUP = 3;

function cameraKey(h: PhotoHeader): string {
  const v = h.layout?.values ?? {};
  if (v.serial) return `serial:${v.make ?? ""}|${v.model ?? ""}|${v.serial}`;
  if (v.make || v.model) return `model:${v.make ?? ""}|${v.model ?? ""}`;
  return "unknown";
}

function dominant<T>(items: T[], key: (t: T) => string): { key: string; count: number } | null {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(key(i), (counts.get(key(i)) ?? 0) + 1);
  let best: { key: string; count: number } | null = null;
  for (const [k, c] of [...counts].sort((a, b) => a[0].localeCompare(b[0]))) if (!best || c > best.count) best = { key: k, count: c };
  return best;
}

/** "Y:M:D h:m:s" (EXIF) to seconds, or null. The camera's wall clock, no zone: only differences are used. */
function exifSeconds(s: string | undefined): number | null {
  const m = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s ?? "");
  if (!m) return null;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000;
}

export function cardChecks(photos: CardPhoto[]): { cameras: CameraView[]; sequence: SequencePoint[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const groups = new Map<string, CardPhoto[]>();
  for (const p of photos) groups.set(cameraKey(p.header), [...(groups.get(cameraKey(p.header)) ?? []), p]);
  const ordered = [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const cameras: CameraView[] = [];
  const sequence: SequencePoint[] = [];
  const withExif = photos.filter((p) => p.header.layout).length;

  ordered.forEach(([key, group], i) => {
    const label = key === "unknown" ? "?" : `C${i + 1}`;
    const v = group[0]!.header.layout?.values ?? {};
    const sigs = new Map<string, CardPhoto[]>();
    for (const p of group) sigs.set(p.header.signature, [...(sigs.get(p.header.signature) ?? []), p]);
    cameras.push({
      label,
      make: v.make ?? null,
      model: v.model ?? null,
      serial: key.startsWith("serial:") ? (v.serial ?? null) : null,
      photos: group.length,
      signatures: [...sigs]
        .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
        .map(([signature, ps]) => ({
          signature,
          photos: ps.length,
          parts: ps[0]!.header.signatureParts,
          ijgQuality: ps[0]!.header.ijgExact ? (ps[0]!.header.quality.luma?.quality ?? null) : null,
        })),
    });
    if (key === "unknown") {
      for (const p of group) if (!p.header.layout && withExif > 0) findings.push(finding(p.sha256, "exif", "look", "noExif", { others: withExif }));
      return;
    }
    compareWithinCamera(label, group, findings);
    sequenceOf(label, group, sequence, findings);
  });
  return { cameras, sequence, findings };
}

function compareWithinCamera(label: string, group: CardPhoto[], findings: Finding[]): void {
  if (group.length < MIN_GROUP) return;
  // The camera's own photos set its usual; in-camera copies are re-encoded by the camera at other settings.
  const own = group.filter((p) => !p.inCameraCopy);
  const usual = dominant(own, (p) => p.header.signature);
  const usualPhoto = usual ? own.find((p) => p.header.signature === usual.key)! : null;
  if (usual && usualPhoto && usual.count >= MIN_GROUP && usual.count / own.length >= DOMINANT_SHARE) {
    const u = usualPhoto.header;
    const ijgCamera = u.ijgExact && u.huffman === "optimised";
    if (ijgCamera) {
      findings.push(finding(null, "signature", "information", "cameraIjgTables", { camera: label, count: usual.count, quality: u.quality.luma?.quality ?? 0 }));
    }
    for (const p of group) {
      const h = p.header;
      if (h.signature === usual.key) continue;
      const parts = (Object.keys(h.signatureParts) as (keyof typeof h.signatureParts)[]).filter((k) => h.signatureParts[k] !== u.signatureParts[k]);
      const deep = parts.some((k) => k === "tables" || k === "huffman" || k === "ifds" || k === "subsampling" || k === "makerNote");
      if (!ijgCamera && h.ijgExact && h.huffman === "optimised" && !p.inCameraCopy) {
        findings.push(finding(p.sha256, "signature", "strong", "editorTables", { camera: label, quality: h.quality.luma?.quality ?? 0 }));
      }
      const severity = p.inCameraCopy ? "information" : deep ? "strong" : "look";
      findings.push(
        finding(p.sha256, "signature", severity, "signatureOutlier", {
          signature: h.signature,
          usual: usual.key,
          others: usual.count,
          camera: label,
          parts: parts.join(", "),
        }),
      );
    }
    const withNote = own.filter((p) => p.header.layout?.makerNote).length;
    const withThumb = own.filter((p) => p.header.layout?.thumbnail).length;
    const size = (p: CardPhoto) => (p.header.structure.frame ? `${Math.max(p.header.structure.frame.width, p.header.structure.frame.height)}×${Math.min(p.header.structure.frame.width, p.header.structure.frame.height)}` : "?");
    const usualSize = dominant(own, size);
    for (const p of group) {
      if (p.inCameraCopy) continue;
      if (!p.header.layout?.makerNote && withNote / own.length >= DOMINANT_SHARE) findings.push(finding(p.sha256, "exif", "look", "makerNoteMissing", { others: withNote, camera: label }));
      if (!p.header.layout?.thumbnail && withThumb / own.length >= DOMINANT_SHARE) findings.push(finding(p.sha256, "thumbnail", "look", "thumbnailMissing", { others: withThumb, camera: label }));
      if (usualSize && usualSize.count / own.length >= DOMINANT_SHARE && size(p) !== usualSize.key) {
        findings.push(finding(p.sha256, "exif", "look", "dimensionsUnusual", { size: size(p), usual: usualSize.key, others: usualSize.count, camera: label }));
      }
    }
  }
}

function sequenceOf(label: string, group: CardPhoto[], sequence: SequencePoint[], findings: Finding[]): void {
  const numbered = group.filter((p) => p.order !== null).sort((a, b) => a.order! - b.order! || a.sha256.localeCompare(b.sha256));
  for (const p of numbered) sequence.push({ photo: p.sha256, camera: label, name: p.name, order: p.order!, captured: p.header.layout?.values.captured ?? null });
  // Repeats: two different files the camera gave one number.
  for (let i = 1; i < numbered.length; i++) {
    if (numbered[i]!.order === numbered[i - 1]!.order) findings.push(finding(numbered[i]!.sha256, "sequence", "look", "numberRepeated", { camera: label, number: numbered[i]!.name ?? String(numbered[i]!.order) }));
  }
  // Gaps: numbers the camera skipped (files deleted in the camera, or missing from the card). Within a folder only.
  for (let i = 1; i < numbered.length; i++) {
    const a = numbered[i - 1]!.order!;
    const b = numbered[i]!.order!;
    if (Math.floor(a / 10000) === Math.floor(b / 10000) && b - a > 1) {
      findings.push(finding(null, "sequence", "information", "numberGap", { camera: label, from: (a % 10000) + 1, to: (b % 10000) - 1, count: b - a - 1 }));
    }
  }
  // Time against number, over the camera's own shots (its retouched copies keep their original's capture time).
  const shots = numbered.filter((p) => !p.inCameraCopy).map((p) => ({ p, t: exifSeconds(p.header.layout?.values.captured) })).filter((x) => x.t !== null) as { p: CardPhoto; t: number }[];
  for (let i = 1; i < shots.length; i++) {
    if (shots[i]!.t >= shots[i - 1]!.t) continue;
    // Which of the two is out of place: the earlier-numbered one if removing it restores the order.
    const prevOk = i < 2 || shots[i - 2]!.t <= shots[i]!.t;
    const nextBreaks = i + 1 >= shots.length || shots[i - 1]!.t > shots[i + 1]!.t;
    const [odd, ref] = prevOk && nextBreaks ? [shots[i - 1]!, shots[i]!] : [shots[i]!, shots[i - 1]!];
    const seconds = Math.abs(ref.t - odd.t);
    findings.push(
      finding(odd.p.sha256, "sequence", seconds > 60 ? "strong" : "look", "timeBackwards", {
        captured: odd.p.header.layout?.values.captured ?? "",
        seconds,
        previous: ref.p.name ?? ref.p.sha256.slice(0, 12),
        previousTime: ref.p.header.layout?.values.captured ?? "",
        camera: label,
      }),
    );
  }
}

/** DCF names (DCIM/100NCD90/DSC_0012.JPG): the file name and the order number, or nulls for other names. */
export function dcfName(path: string): { name: string | null; order: number | null; inCameraCopy: boolean } {
  const parts = path.split(/[\\/]/);
  const file = /^([A-Za-z0-9_]{4})(\d{4})\.jpe?g$/i.exec(parts[parts.length - 1] ?? "");
  if (!file) return { name: null, order: null, inCameraCopy: false };
  const folder = /^(\d{3})[A-Za-z0-9_]{5}$/.exec(parts[parts.length - 2] ?? "");
  const prefix = file[1]!.toUpperCase();
  return {
    name: `${file[1]}${file[2]}`,
    order: (folder ? Number(folder[1]) : 100) * 10000 + Number(file[2]),
    inCameraCopy: prefix === "CSC_" || prefix === "SSC_",
  };
}
