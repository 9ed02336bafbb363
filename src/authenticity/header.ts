/**
 * One photo's header, summarised for the checks: the JPEG structure, the EXIF layout, the quality estimate, and
 * its header signature (Kee, Johnson & Farid, "Digital Image Authentication from JPEG Headers", IEEE TIFS 6(3),
 * 2011, §III: quantisation tables, Huffman tables, image and thumbnail sizes, EXIF layout). Two photos from one
 * camera model at one setting share a signature; an editor that re-saves writes its own.
 */
import { createHash } from "node:crypto";
import { readExifLayout, type ExifLayout } from "./exif-layout.ts";
import { parseJpeg, photoshopResources, markerName, type JpegStructure } from "./jpeg.ts";
import { estimateImageQuality, huffmanIsStandard, ijgTable, type QualityEstimate } from "./quality.ts";
import type * as contracts from "./contracts.ts";

export interface PhotoHeader {
  structure: JpegStructure;
  layout: ExifLayout | null;
  quality: { luma: QualityEstimate | null; chroma: QualityEstimate | null };
  huffman: "standard" | "optimised" | "none";
  /** Photoshop resource ids in APP13, with the block's fault if it could not be walked. */
  photoshop: { ids: number[]; broken: boolean } | null;
  /** The XMP packet's text (first standard packet), for the editing traces it may hold. */
  xmp: string | null;
  /** Short hex digest of the quantisation tables alone (which cameras and editors differ in first). */
  tablesHash: string | null;
  /** Short hex digest of everything in the signature. */
  signature: string;
  /** The signature's parts, readable, for the report. */
  signatureParts: SignatureParts;
  /** The tables are exactly libjpeg's at some quality: what an IJG-based encoder (editors, libraries) writes. */
  ijgExact: boolean;
}

export type SignatureParts = contracts.SignatureParts;

const XMP_ID = "http://ns.adobe.com/xap/1.0/";

function hex16(s: string): string {
  return createHash("sha256").update(s).digest("hex").slice(0, 16);
}

function xmpText(bytes: Uint8Array, s: JpegStructure): string | null {
  const seg = s.apps.find((a) => a.n === 1 && a.identifier === XMP_ID);
  if (!seg) return null;
  const start = seg.offset + 4 + XMP_ID.length + 1;
  return Buffer.from(bytes.subarray(start, seg.offset + 2 + seg.length)).toString("utf8").slice(0, 200_000);
}

export function readHeader(bytes: Uint8Array): PhotoHeader {
  const structure = parseJpeg(bytes);
  const layout = structure.exif ? readExifLayout(structure.exif) : null;
  const tq = structure.frame?.components.map((c) => c.tq) ?? [];
  const quality = estimateImageQuality(structure.quantTables, tq);
  const huffman = structure.huffmanTables.length === 0 ? "none" : huffmanIsStandard(structure.huffmanTables) ? "standard" : "optimised";
  const photoshop = structure.photoshop ? (({ resources, broken }) => ({ ids: resources.map((r) => r.id), broken }))(photoshopResources(structure.photoshop)) : null;
  const tables = structure.quantTables.map((t) => `${t.id}/${t.precision}:${t.values.join(",")}`).join("|");
  const tablesHash = structure.quantTables.length ? hex16(tables) : null;
  let thumbSize = "none";
  if (layout?.thumbnail) {
    const th = parseJpeg(layout.thumbnail);
    thumbSize = th.frame ? `${th.frame.width}x${th.frame.height}` : "unreadable";
  }
  const f = structure.frame;
  const parts: SignatureParts = {
    tables: tablesHash ?? "none",
    huffman,
    subsampling: structure.subsampling ?? "none",
    // Image size is in the signature as Kee et al. have it, turned so portrait and landscape shots of one camera agree.
    frame: f ? `${markerName(f.sof)} ${Math.max(f.width, f.height)}x${Math.min(f.width, f.height)}` : "none",
    thumbnail: thumbSize,
    ifds: layout
      ? [layout.ifd0, layout.exif, layout.gps, layout.ifd1].map((i) => (i ? String(i.tags.length) : "-")).join("/")
      : "no EXIF",
    makerNote: layout?.makerNote ? layout.makerNote.header.replace(/[^A-Za-z0-9]/g, "") || "present" : "none",
    apps: structure.apps.map((a) => `APP${a.n}${a.identifier ? ":" + a.identifier.slice(0, 12) : ""}`).join(" "),
  };
  const signature = hex16(JSON.stringify(parts));
  const ijgExact = (quality.luma?.exact ?? false) && (quality.chroma === null || quality.chroma.exact);
  return { structure, layout, quality, huffman, photoshop, xmp: xmpText(bytes, structure), tablesHash, signature, signatureParts: parts, ijgExact };
}

/** Names of well-known editing and encoding software, as the Software tag and XMP CreatorTool write them. */
export const EDITORS = [
  /photoshop/i,
  /lightroom/i,
  /gimp/i,
  /paint\.net/i,
  /picasa/i,
  /snapseed/i,
  /affinity/i,
  /pixelmator/i,
  /acdsee/i,
  /irfanview/i,
  /imagemagick/i,
  /graphicsmagick/i,
  /windows photo/i,
  /microsoft windows/i,
  /photoscape/i,
  /capture nx/i,
  /digital photo professional/i,
  /darktable/i,
  /rawtherapee/i,
  /libvips/i,
];

export function editorNamed(s: string | null | undefined): string | null {
  if (!s) return null;
  return EDITORS.some((r) => r.test(s)) ? s.slice(0, 80) : null;
}

/** Traces an editor leaves in XMP: a history of actions, a derived-from pointer, Photoshop's own namespace. */
export function xmpEditTraces(xmp: string | null): string[] {
  if (!xmp) return [];
  const out: string[] = [];
  if (/xmpMM:History|stEvt:action/.test(xmp)) out.push("history");
  if (/xmpMM:DerivedFrom|stRef:/.test(xmp)) out.push("derived");
  if (/photoshop:|crs:/.test(xmp)) out.push("editor-namespace");
  const tool = /xmp:CreatorTool(?:="([^"]{1,80})"|>([^<]{1,80})<)/.exec(xmp);
  if (tool && editorNamed(tool[1] ?? tool[2])) out.push("creator-tool");
  return out;
}

/** libjpeg's tables at this quality, as a check for "an IJG encoder wrote this at quality q". */
export function isIjgAt(h: PhotoHeader, quality: number): boolean {
  const t0 = h.structure.quantTables.find((t) => t.id === 0);
  return !!t0 && t0.values.every((v, k) => v === ijgTable(quality, false)[k]);
}
