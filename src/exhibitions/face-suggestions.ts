/**
 * Faces suggested by a detector, for a curator to confirm or discard (issue 16, decision 0029). The detector is
 * SSD MobileNet v1 as shipped inside `@vladmandic/face-api` (its weights are files in the package's `model/`
 * folder), run on TensorFlow.js's WebAssembly backend whose binaries are files in `@tensorflow/tfjs-backend-wasm`:
 * both are read from node_modules by path, so nothing is fetched at run time.
 *
 * Bodies lie in every orientation and such detectors barely see a face turned sideways, so the upright image (as
 * the clean copy is oriented) is searched at 0, 90, 180 and 270 degrees; every box is mapped back to the upright
 * image and boxes that overlap are merged into one suggestion (their union: a redaction errs on the larger side).
 * A suggestion is never a region: nothing here decides what is hidden.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sharp from "sharp";
import type { Rect } from "./clean-copy.ts";

export const ANGLES = [0, 90, 180, 270] as const;
export type Angle = (typeof ANGLES)[number];

export interface FaceBox extends Rect {
  score: number;
  angle: Angle;
}

export interface FaceSuggestion extends Rect {
  /** The best detection score among the merged boxes (0–1). */
  score: number;
  /** The angle of the best box; angles: every angle at which a box of this suggestion was found. */
  angle: Angle;
  angles: Angle[];
}

/** How the detector was run: written beside every stored suggestion. */
export const DETECTOR = "face-api 1.7.15 ssd_mobilenetv1 (tfjs-wasm 4.22)";
export const MIN_SCORE = 0.5;
/** Overlap (intersection over union) above which two boxes are one face. */
export const MERGE_IOU = 0.3;
/** The longest side searched: the model looks at 512×512 anyway; larger originals only cost time and memory. */
export const SEARCH_SIDE = 1024;

interface Tensor3D {
  dispose(): void;
}
interface Detection {
  score: number;
  box: { x: number; y: number; width: number; height: number };
}
interface FaceApi {
  nets: { ssdMobilenetv1: { loadFromDisk(dir: string): Promise<void> } };
  SsdMobilenetv1Options: new (o: { minConfidence: number; maxResults: number }) => unknown;
  detectAllFaces(input: Tensor3D, options: unknown): Promise<Detection[]>;
  tf: { tensor3d(values: Int32Array, shape: [number, number, number], dtype: "int32"): Tensor3D };
}

let loading: Promise<FaceApi> | null = null;

/** The detector, loaded once per process from files in node_modules (never from the network). */
export function loadDetector(): Promise<FaceApi> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const tf = require("@tensorflow/tfjs") as { setBackend(name: string): Promise<boolean>; ready(): Promise<void>; getBackend(): string };
    const wasm = require("@tensorflow/tfjs-backend-wasm") as { setWasmPaths(prefix: string, usePlatformFetch?: boolean): void };
    // A folder (not a URL) and no platform fetch: Emscripten then reads the .wasm file with fs.
    wasm.setWasmPaths(dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + "/");
    if (!(await tf.setBackend("wasm"))) throw new Error("the WebAssembly backend of TensorFlow.js did not start");
    await tf.ready();
    const faceapi = require("@vladmandic/face-api/dist/face-api.node-wasm.js") as FaceApi;
    await faceapi.nets.ssdMobilenetv1.loadFromDisk(join(dirname(require.resolve("@vladmandic/face-api/package.json")), "model"));
    return faceapi;
  })();
  loading.catch(() => (loading = null));
  return loading;
}

/** The image upright (EXIF orientation applied, as the clean copy is), RGB, at most SEARCH_SIDE on its longest side. */
export async function uprightPixels(original: Buffer): Promise<{ data: Buffer; width: number; height: number; fullWidth: number; fullHeight: number }> {
  const upright = await sharp(original).rotate().toColourspace("srgb").removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = upright.info;
  const scale = Math.min(1, SEARCH_SIDE / Math.max(width, height));
  if (scale === 1) return { data: upright.data, width, height, fullWidth: width, fullHeight: height };
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const small = await sharp(upright.data, { raw: { width, height, channels: 3 } }).resize(w, h, { fit: "fill" }).raw().toBuffer();
  return { data: small, width: w, height: h, fullWidth: width, fullHeight: height };
}

/**
 * A box found in the image turned clockwise by angle, mapped back to the upright image of width × height.
 * (Turned 90° clockwise, the upright point (x, y) lands at (height − y, x).)
 */
export function mapBack(b: Rect, angle: Angle, width: number, height: number): Rect {
  switch (angle) {
    case 0:
      return { ...b };
    case 90:
      return { x: b.y, y: height - (b.x + b.w), w: b.h, h: b.w };
    case 180:
      return { x: width - (b.x + b.w), y: height - (b.y + b.h), w: b.w, h: b.h };
    case 270:
      return { x: width - (b.y + b.h), y: b.x, w: b.h, h: b.w };
  }
}

export function iou(a: Rect, b: Rect): number {
  const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const inter = ix * iy;
  const union = a.w * a.h + b.w * b.h - inter;
  return union > 0 ? inter / union : 0;
}

/** Boxes that overlap (IoU ≥ MERGE_IOU, transitively) become one suggestion: their union, the best score. */
export function mergeBoxes(boxes: readonly FaceBox[], threshold = MERGE_IOU): FaceSuggestion[] {
  const sorted = [...boxes].sort((a, b) => b.score - a.score || a.angle - b.angle || a.x - b.x || a.y - b.y);
  const groups: FaceBox[][] = [];
  for (const b of sorted) {
    const hits = groups.filter((g) => g.some((m) => iou(m, b) >= threshold));
    if (hits.length === 0) groups.push([b]);
    else {
      const into = hits[0]!;
      into.push(b);
      for (const other of hits.slice(1)) {
        into.push(...other);
        groups.splice(groups.indexOf(other), 1);
      }
    }
  }
  return groups.map((g) => {
    const best = g.reduce((a, b) => (b.score > a.score ? b : a));
    const x0 = Math.min(...g.map((b) => b.x));
    const y0 = Math.min(...g.map((b) => b.y));
    const x1 = Math.max(...g.map((b) => b.x + b.w));
    const y1 = Math.max(...g.map((b) => b.y + b.h));
    const angles = [...new Set(g.map((b) => b.angle))].sort((a, b) => a - b);
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0, score: best.score, angle: best.angle, angles };
  });
}

/** Runs the detector on raw RGB pixels turned clockwise by each angle; boxes in upright pixels of that image. */
export async function detectAt(pixels: { data: Buffer; width: number; height: number }, angles: readonly Angle[] = ANGLES): Promise<FaceBox[]> {
  const faceapi = await loadDetector();
  const options = new faceapi.SsdMobilenetv1Options({ minConfidence: MIN_SCORE, maxResults: 100 });
  const out: FaceBox[] = [];
  for (const angle of angles) {
    const turned = angle === 0 ? { data: pixels.data, info: { width: pixels.width, height: pixels.height } } : await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 3 } }).rotate(angle).raw().toBuffer({ resolveWithObject: true });
    const tensor = faceapi.tf.tensor3d(Int32Array.from(turned.data), [turned.info.height, turned.info.width, 3], "int32");
    try {
      for (const d of await faceapi.detectAllFaces(tensor, options)) {
        const b = mapBack({ x: d.box.x, y: d.box.y, w: d.box.width, h: d.box.height }, angle, pixels.width, pixels.height);
        out.push({ ...b, score: d.score, angle });
      }
    } finally {
      tensor.dispose();
    }
  }
  return out;
}

/** Suggested face regions for an original, in whole pixels of its upright image, clipped to it, best first. */
export async function suggestFaceRegions(original: Buffer, angles: readonly Angle[] = ANGLES): Promise<FaceSuggestion[]> {
  const px = await uprightPixels(original);
  const merged = mergeBoxes(await detectAt(px, angles));
  const sx = px.fullWidth / px.width;
  const sy = px.fullHeight / px.height;
  const out: FaceSuggestion[] = [];
  for (const s of merged) {
    const x0 = Math.max(0, Math.floor(s.x * sx));
    const y0 = Math.max(0, Math.floor(s.y * sy));
    const x1 = Math.min(px.fullWidth, Math.ceil((s.x + s.w) * sx));
    const y1 = Math.min(px.fullHeight, Math.ceil((s.y + s.h) * sy));
    if (x1 - x0 >= 1 && y1 - y0 >= 1) out.push({ ...s, x: x0, y: y0, w: x1 - x0, h: y1 - y0, score: Math.round(s.score * 1000) / 1000 });
  }
  return out.sort((a, b) => b.score - a.score || a.y - b.y || a.x - b.x);
}
