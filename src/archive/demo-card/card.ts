import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { Conflict, Invalid } from "../../core/errors.ts";
import { BodyFactory, photosPerBody } from "./bodies.ts";
import { MIN_PHOTOS_FOR_ANOMALIES, plantAnomalies } from "./anomalies.ts";
import type { BodyRecord } from "./bodies.ts";
import { cameraExif, chooseCamera, chooseShotSettings, retouchExif } from "./exif.ts";
import type { ShotSettings } from "./exif.ts";
import {
  hostileExifJpeg,
  jpegBomb,
  jpegNamedPng,
  movieAvi,
  pngBomb,
  pngNamedJpg,
  rawNef,
  textNamedJpg,
  truncatedJpeg,
  zeroBytes,
} from "./faults.ts";
import type { FaultFile } from "./faults.ts";
import { baseName, COPY_FOLDER, DcfNamer } from "./naming.ts";
import { cardFragment, chooseCardStyle } from "./paper-card.ts";
import { Rng } from "./prng.ts";
import { encodeCameraJpeg, renderCardTexture, renderRaster, retouchedCopy } from "./render.ts";
import type { Orientation } from "./render.ts";
import { chooseCardPlacement, chooseSceneStyle, chooseShotView, NoiseTile } from "./scene.ts";
import { exifDateTime, instant, isoDate, isoLocal, parseStartDate, WorkClock } from "./schedule.ts";
import type { DemoCardTruth, TruthBody, TruthCamera, TruthFault, TruthPhoto } from "./truth.ts";
import { say } from "../../core/messages.ts";

export interface DemoCardOptions {
  bodies: number;
  /** Same seed, same card, byte for byte (on the same fonts and sharp/libvips version). 42 and "42" are one seed. */
  seed?: string | number;
  withFaults?: boolean;
  /** Change six photos afterwards (an editor's re-save, another camera, a shifted time …), recorded in the truth. */
  withAnomalies?: boolean;
  /** First working day, YYYY-MM-DD (Damascus time); moved to the next Sunday–Thursday if needed. */
  startDate?: string;
  /** Files per DCIM folder before the camera opens the next one (a real camera: 999 or 9999). */
  filesPerFolder?: number;
  /** Photos rendered at once; 2 matches a 2-core machine. */
  concurrency?: number;
  /**
   * Go on with a card written into `outDir` before (stopped, or written in shards): a body whose files are all
   * there with the times the card gives them is read back, not drawn again; any other is drawn (again). The card
   * is the same, byte for byte, as one written in a single run.
   */
  resume?: boolean;
  /**
   * Draw only every `of`-th body from the `index`-th (0-based), and write no truth.json: several processes (or
   * machines) draw one card together, then a run with `resume` reads it all back and writes the truth.
   */
  shard?: { index: number; of: number };
}

export const DEFAULT_SEED = "dalil-demo";
export const DEFAULT_START_DATE = "2012-05-06";
export const DEFAULT_FILES_PER_FOLDER = 500;
export const MAX_BODIES = 20000;

const EXACT_DUPLICATE_RATE = 0.02;
const NEAR_DUPLICATE_RATE = 0.025;
const ORIGINAL_QUALITY = 90;

interface ShotPlan {
  path: string;
  seq: number;
  wall: number;
  portrait: boolean;
  orientation: Orientation;
  settings: ShotSettings;
  copyTo: string | null;
  near: { path: string; seq: number; variant: "recompressed" | "small"; wall: number } | null;
}

interface BodyUnit {
  kind: "body";
  index: number;
  body: BodyRecord;
  photoDate: string;
  shots: ShotPlan[];
}

interface FaultUnit {
  kind: "fault";
  name: FaultName;
  path: string;
  seq: number;
  wall: number;
}

type Unit = BodyUnit | FaultUnit;

type FaultName =
  | "truncated-jpeg"
  | "zero-bytes"
  | "jpeg-named-png"
  | "png-named-jpg"
  | "not-an-image"
  | "decompression-bomb-png"
  | "decompression-bomb-jpeg"
  | "hostile-exif"
  | "raw-nef"
  | "movie-avi";

const FAULT_EXT: Record<FaultName, string> = {
  "truncated-jpeg": "JPG",
  "zero-bytes": "JPG",
  "jpeg-named-png": "PNG",
  "png-named-jpg": "JPG",
  "not-an-image": "JPG",
  "decompression-bomb-png": "PNG",
  "decompression-bomb-jpeg": "JPG",
  "hostile-exif": "JPG",
  "raw-nef": "NEF",
  "movie-avi": "AVI",
};

/** Faults scattered through the card; the truncated file is always the last the camera wrote. */
const SCATTERED_FAULTS: FaultName[] = [
  "zero-bytes",
  "jpeg-named-png",
  "png-named-jpg",
  "not-an-image",
  "decompression-bomb-png",
  "decompression-bomb-jpeg",
  "hostile-exif",
  "raw-nef",
  "movie-avi",
];

function pickDistinct(rng: Rng, n: number, k: number): Set<number> {
  const out = new Set<number>();
  while (out.size < Math.min(k, n)) out.add(rng.int(0, n - 1));
  return out;
}

function validate(opts: DemoCardOptions): void {
  if (!Number.isInteger(opts.bodies) || opts.bodies < 1 || opts.bodies > MAX_BODIES) {
    throw new Invalid(say("demoCard.bodies", { max: MAX_BODIES }), "bodies");
  }
  const c = opts.concurrency ?? 2;
  if (!Number.isInteger(c) || c < 1 || c > 16) {
    throw new Invalid(say("demoCard.concurrency"), "concurrency");
  }
  if (opts.seed !== undefined && String(opts.seed).length === 0) {
    throw new Invalid(say("demoCard.seed"), "seed");
  }
  const sh = opts.shard;
  if (sh && !(Number.isInteger(sh.of) && sh.of >= 1 && sh.of <= 64 && Number.isInteger(sh.index) && sh.index >= 0 && sh.index < sh.of)) {
    throw new Invalid(say("demoCard.shard"), "shard");
  }
}

/** Decides everything about the card (names, times, bodies, which photos get copies) before any pixel. */
/** Every path the card's plan names, in order (no pixel drawn): what a test of a large card's naming needs. */
export function plannedPaths(opts: DemoCardOptions): string[] {
  validate(opts);
  const units = planCard(Rng.fromSeed(String(opts.seed ?? DEFAULT_SEED)), opts, opts.filesPerFolder ?? DEFAULT_FILES_PER_FOLDER, opts.startDate ?? DEFAULT_START_DATE);
  return units.flatMap((u) => (u.kind === "fault" ? [u.path] : u.shots.flatMap((s) => [s.path, ...(s.near ? [s.near.path] : []), ...(s.copyTo ? [s.copyTo] : [])])));
}

function planCard(root: Rng, opts: DemoCardOptions, filesPerFolder: number, startDate: string): Unit[] {
  const rng = root.fork("plan");
  const namer = new DcfNamer(filesPerFolder);
  const clock = new WorkClock(startDate);
  const factory = new BodyFactory(root.fork("bodies"));
  const counts = Array.from({ length: opts.bodies }, () => photosPerBody(rng));
  const total = counts.reduce((a, b) => a + b, 0);
  const exact = pickDistinct(rng, total, Math.max(1, Math.round(total * EXACT_DUPLICATE_RATE)));
  const near = pickDistinct(rng, total, Math.max(1, Math.round(total * NEAR_DUPLICATE_RATE)));
  const faultsBefore = new Map<number, FaultName[]>();
  if (opts.withFaults) {
    for (const f of SCATTERED_FAULTS) {
      const at = rng.int(0, opts.bodies - 1);
      faultsBefore.set(at, [...(faultsBefore.get(at) ?? []), f]);
    }
  }

  const units: Unit[] = [];
  // Past 9,999 files the camera's numbers start again, so two copies put back by a computer can share a name: the
  // second is named as a computer names a copy beside one of the same name.
  const copyNames = new Set<string>();
  const copyPath = (path: string): string => {
    const base = baseName(path);
    let name = base;
    for (let k = 2; copyNames.has(name); k++) name = base.replace(/(\.[^.]*)$/, ` (${k})$1`);
    copyNames.add(name);
    return `${COPY_FOLDER}/${name}`;
  };
  let seq = 0;
  let original = 0;
  let hospital = "";
  const addFault = (name: FaultName): void => {
    units.push({ kind: "fault", name, path: namer.next("DSC_", FAULT_EXT[name]), seq: seq++, wall: clock.pause(rng, 5, 20) });
  };
  for (let i = 0; i < opts.bodies; i++) {
    // The photographer works in one hospital a day.
    if (clock.nextBody(rng)) hospital = factory.pickHospital();
    for (const f of faultsBefore.get(i) ?? []) addFault(f);
    const body = factory.make(i, opts.bodies, hospital);
    const shots: ShotPlan[] = [];
    for (let k = 0; k < (counts[i] as number); k++) {
      const portrait = rng.chance(0.18);
      const orientation: Orientation = portrait && rng.chance(0.6) ? (rng.chance(0.5) ? 6 : 8) : 1;
      const wall = clock.shot(rng, k === 0);
      const path = namer.next("DSC_", "JPG");
      shots.push({
        path,
        seq: seq++,
        wall,
        portrait,
        orientation,
        settings: chooseShotSettings(rng),
        copyTo: exact.has(original) ? copyPath(path) : null,
        near: null,
      });
      original++;
    }
    // In-camera copies come after the body's shots, under the next numbers.
    shots.forEach((s, k) => {
      if (!near.has(original - shots.length + k)) return;
      const variant = rng.chance(0.5) ? "recompressed" : "small";
      const wall = clock.pause(rng, 20, 60);
      s.near = { path: namer.next(variant === "small" ? "SSC_" : "CSC_", "JPG"), seq: seq++, variant, wall };
    });
    units.push({ kind: "body", index: i, body, photoDate: isoDate((shots[0] as ShotPlan).wall), shots });
  }
  if (opts.withFaults) addFault("truncated-jpeg");
  return units;
}

interface Output {
  photos: { seq: number; photo: TruthPhoto }[];
  faults: { seq: number; fault: TruthFault }[];
  bodies: TruthBody[];
}

class CardWriter {
  private readonly dirs = new Set<string>();
  done = 0;

  constructor(
    private readonly outDir: string,
    private readonly total: number,
    private readonly onProgress: ((done: number, total: number) => void) | undefined,
  ) {}

  async write(path: string, bytes: Buffer, wall: number): Promise<{ sha256: string; bytes: number }> {
    const full = join(this.outDir, ...path.split("/"));
    const dir = dirname(full);
    if (!this.dirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.dirs.add(dir);
    }
    // Written aside and renamed, so a file under its own name is always whole (a stopped run leaves no half file).
    const aside = `${full}.writing`;
    await writeFile(aside, bytes);
    // A camera stamps each file with its local time; what a computer shows is that instant.
    const t = instant(wall);
    await utimes(aside, t, t);
    await rename(aside, full);
    this.done++;
    this.onProgress?.(this.done, this.total);
    return { sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length };
  }

  /** A file written before (by a stopped run or another shard): whole, and stamped with its time. Null if not. */
  async already(path: string, wall: number): Promise<{ sha256: string; bytes: number } | null> {
    const full = join(this.outDir, ...path.split("/"));
    try {
      const st = await stat(full);
      if (st.mtimeMs !== instant(wall).getTime()) return null;
      const bytes = await readFile(full);
      return { sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  /** Counts a file read back rather than written. */
  counted(): void {
    this.done++;
    this.onProgress?.(this.done, this.total);
  }

  /** Removes what an earlier run left of a body before it is drawn again. */
  async clear(path: string): Promise<void> {
    const full = join(this.outDir, ...path.split("/"));
    await rm(full, { force: true });
    await rm(`${full}.writing`, { force: true });
  }

}

function displaySize(portrait: boolean): { width: number; height: number } {
  return portrait ? { width: 1200, height: 1600 } : { width: 1600, height: 1200 };
}

async function writeBody(
  unit: BodyUnit,
  root: Rng,
  camera: TruthCamera,
  noise: NoiseTile,
  writer: CardWriter,
  out: Output,
  resume: boolean,
): Promise<void> {
  const bodyRng = root.fork(`body/${unit.index}`);
  const b = unit.body;
  // A body an earlier run wrote whole is read back; one it left part-written is drawn again from the start.
  let kept: Map<string, { sha256: string; bytes: number }> | null = null;
  if (resume) {
    const files = unit.shots.flatMap((s) => [
      { path: s.path, wall: s.wall },
      ...(s.near ? [{ path: s.near.path, wall: s.near.wall }] : []),
      ...(s.copyTo ? [{ path: s.copyTo, wall: s.wall }] : []),
    ]);
    kept = new Map();
    for (const f of files) {
      const w = await writer.already(f.path, f.wall);
      if (!w) {
        kept = null;
        break;
      }
      kept.set(f.path, w);
    }
    if (!kept) for (const f of files) await writer.clear(f.path);
  }
  const put = async (path: string, bytes: () => Promise<Buffer>, wall: number) => {
    const w = kept?.get(path);
    if (w) {
      writer.counted();
      return w;
    }
    return writer.write(path, await bytes(), wall);
  };
  const style = chooseSceneStyle(bodyRng.fork("scene"));
  const cardStyle = chooseCardStyle(bodyRng.fork("card"), b.digits);
  let texture: Awaited<ReturnType<typeof renderCardTexture>> | null = null;
  const paths: string[] = [];
  const copies: string[] = [];
  for (const [k, shot] of unit.shots.entries()) {
    const rng = bodyRng.fork(`shot/${k}`);
    const { width, height } = displaySize(shot.portrait);
    const view = chooseShotView(rng.fork("view"), shot.portrait, NoiseTile.SIZE);
    const place = chooseCardPlacement(rng.fork("card"), width, height);
    let jpeg: Buffer | null = null;
    const photo = async (): Promise<Buffer> => {
      if (jpeg) return jpeg;
      texture ??= await renderCardTexture(cardFragment({ detaineeNo: b.detaineeNo, branchNo: b.branchNo, examinerNo: b.examinerNo, digits: b.digits }, cardStyle));
      const rgb = await renderRaster({ style, view, width, height, card: { texture, place } }, noise);
      jpeg = await encodeCameraJpeg(rgb, width, height, shot.orientation, ORIGINAL_QUALITY, cameraExif(camera, shot.wall, shot.settings));
      return jpeg;
    };
    const captureTime = isoLocal(shot.wall);
    const record = (
      path: string,
      kind: TruthPhoto["kind"],
      written: { sha256: string; bytes: number },
      size: { width: number; height: number },
      variant?: "recompressed" | "small",
    ): TruthPhoto => ({
      path,
      body: b.ref,
      kind,
      ...(kind === "original" ? {} : { duplicate_of: shot.path }),
      ...(variant ? { variant } : {}),
      sha256: written.sha256,
      bytes: written.bytes,
      capture_time: captureTime,
      width: size.width,
      height: size.height,
      orientation: shot.orientation,
    });
    out.photos.push({ seq: shot.seq, photo: record(shot.path, "original", await put(shot.path, photo, shot.wall), { width, height }) });
    paths.push(shot.path);
    if (shot.near) {
      const n = shot.near;
      const small = n.variant === "small";
      const copy = async () => retouchedCopy(await photo(), small ? 85 : 72, small ? 640 : null, retouchExif(n.wall));
      const size = small ? (shot.portrait ? { width: 480, height: 640 } : { width: 640, height: 480 }) : { width, height };
      out.photos.push({ seq: n.seq, photo: record(n.path, "near-duplicate", await put(n.path, copy, n.wall), size, n.variant) });
      copies.push(n.path);
    }
    if (shot.copyTo) {
      // Copied back by a computer: same bytes, and the same time stamp (copies keep modification times).
      const w = await put(shot.copyTo, photo, shot.wall);
      out.photos.push({ seq: 1e9 + shot.seq, photo: record(shot.copyTo, "exact-duplicate", w, { width, height }) });
      copies.push(shot.copyTo);
    }
  }
  out.bodies[unit.index] = {
    ref: b.ref,
    detainee_no: b.detaineeNo,
    branch_no: b.branchNo,
    examiner_no: b.examinerNo,
    digits: b.digits,
    hospital: b.hospital,
    photo_date: unit.photoDate,
    sex: b.sex,
    age_min: b.ageMin,
    age_max: b.ageMax,
    marks: b.marks,
    photos: [...paths, ...copies],
  };
}

/** A plain scene without a card, for the fault files that need real image bytes inside them. */
async function plainRaster(rng: Rng, noise: NoiseTile, width: number, height: number): Promise<Buffer> {
  const style = chooseSceneStyle(rng.fork("scene"));
  const view = chooseShotView(rng.fork("view"), height > width, NoiseTile.SIZE);
  return renderRaster({ style, view, width, height, card: null }, noise);
}

async function plainJpeg(rng: Rng, noise: NoiseTile, width: number, height: number, quality: number): Promise<Buffer> {
  const rgb = await plainRaster(rng, noise, width, height);
  return sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

async function makeFault(unit: FaultUnit, root: Rng, camera: TruthCamera, noise: NoiseTile): Promise<FaultFile> {
  const rng = root.fork(`fault/${unit.name}`);
  const cameraShot = async (): Promise<Buffer> => {
    const rgb = await plainRaster(rng, noise, 1600, 1200);
    return encodeCameraJpeg(rgb, 1600, 1200, 1, ORIGINAL_QUALITY, cameraExif(camera, unit.wall, chooseShotSettings(rng)));
  };
  switch (unit.name) {
    case "truncated-jpeg":
      return truncatedJpeg(await cameraShot());
    case "zero-bytes":
      return zeroBytes();
    case "jpeg-named-png":
      return jpegNamedPng(await cameraShot());
    case "png-named-jpg": {
      const rgb = await plainRaster(rng, noise, 800, 600);
      return pngNamedJpg(await sharp(rgb, { raw: { width: 800, height: 600, channels: 3 } }).png().toBuffer());
    }
    case "not-an-image":
      return textNamedJpg();
    case "decompression-bomb-png":
      return pngBomb();
    case "decompression-bomb-jpeg":
      return jpegBomb(await plainJpeg(rng, noise, 320, 240, 80));
    case "hostile-exif":
      return hostileExifJpeg(await plainJpeg(rng, noise, 800, 600, 88));
    case "raw-nef":
      return rawNef(await plainRaster(rng, noise, 160, 120), camera, exifDateTime(unit.wall));
    case "movie-avi":
      return movieAvi(await plainJpeg(rng, noise, 320, 240, 85), 320, 240);
  }
}

async function ensureEmpty(outDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(outDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      await mkdir(outDir, { recursive: true });
      return;
    }
    throw err;
  }
  if (entries.length > 0) {
    throw new Conflict(say("demoCard.folderNotEmpty", { folder: outDir }));
  }
}

async function runPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, () => worker()));
}

/**
 * Writes a synthetic photographer's memory card into `outDir` (which must be new or empty) and its ground
 * truth to `outDir/truth.json`. Deterministic for a seed. Progress counts files written (photos and faults).
 */
export async function writeDemoCard(
  outDir: string,
  opts: DemoCardOptions,
  onProgress?: (done: number, total: number) => void,
): Promise<DemoCardTruth> {
  validate(opts);
  const seed = String(opts.seed ?? DEFAULT_SEED);
  const startDate = opts.startDate ?? DEFAULT_START_DATE;
  parseStartDate(startDate);
  const filesPerFolder = opts.filesPerFolder ?? DEFAULT_FILES_PER_FOLDER;
  const root = Rng.fromSeed(seed);
  const planned = planCard(root, opts, filesPerFolder, startDate);
  const resume = Boolean(opts.resume || opts.shard);
  if (!resume) await ensureEmpty(outDir);
  else {
    await mkdir(outDir, { recursive: true });
    if ((await readdir(outDir)).includes("truth.json")) throw new Conflict(say("demoCard.complete", { folder: outDir }));
  }
  const shard = opts.shard;
  const units = shard ? planned.filter((u) => (u.kind === "body" ? u.index : u.seq) % shard.of === shard.index) : planned;

  const camera = chooseCamera(root.fork("camera"));
  const noise = new NoiseTile(root.fork("noise"));
  let total = 0;
  for (const u of units) {
    if (u.kind === "fault") total++;
    else for (const s of u.shots) total += 1 + (s.near ? 1 : 0) + (s.copyTo ? 1 : 0);
  }
  const writer = new CardWriter(outDir, total, onProgress);
  const out: Output = { photos: [], faults: [], bodies: [] };
  await runPool(units, opts.concurrency ?? 2, async (u) => {
    if (u.kind === "body") {
      await writeBody(u, root, camera, noise, writer, out, resume);
      return;
    }
    if (resume) await writer.clear(u.path);
    const f = await makeFault(u, root, camera, noise);
    const w = await writer.write(u.path, f.bytes, u.wall);
    out.faults.push({
      seq: u.seq,
      fault: { path: u.path, fault: f.fault, expect: f.expect, reason: f.reason, format: f.format, ...w },
    });
  });

  if (shard) {
    // One shard's part of the card: the truth is written by a run with `resume` once every shard is done.
    return { version: 1, seed, start_date: startDate, files_per_folder: filesPerFolder, camera, bodies: out.bodies.filter(Boolean), photos: [], faults: [] };
  }
  const truth: DemoCardTruth = {
    version: 1,
    seed,
    start_date: startDate,
    files_per_folder: filesPerFolder,
    camera,
    bodies: out.bodies,
    photos: out.photos.sort((a, b) => a.seq - b.seq).map((p) => p.photo),
    faults: out.faults.sort((a, b) => a.seq - b.seq).map((f) => f.fault),
  };
  if (opts.withAnomalies) {
    if (truth.photos.filter((p) => p.kind === "original").length < MIN_PHOTOS_FOR_ANOMALIES) {
      throw new Invalid(say("demoCard.anomaliesNeedPhotos", { min: MIN_PHOTOS_FOR_ANOMALIES }), "bodies");
    }
    truth.anomalies = await plantAnomalies(outDir, truth, root.fork("anomalies"));
  }
  await writeFile(join(outDir, "truth.json"), `${JSON.stringify(truth, null, 2)}\n`, { flag: "wx" });
  return truth;
}
