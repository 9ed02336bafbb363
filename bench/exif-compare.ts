/**
 * exifr vs exiftool-vendored (and our extractMetadata, which is exifr behind a structural guard plus our own
 * XMP/IPTC readers), measured on the same files in the same run: throughput and field coverage.
 *
 *   npx tsx bench/exif-compare.ts [--files 200] [--rounds 3] [--json]
 *
 * The files are 1600×1200 JPEGs whose metadata sharp writes (withExif / withXmp on a tiny image, spliced in
 * front of ten distinct picture bodies), with maker-ish fields: a Nikon maker note carrying the body serial
 * and shutter count, lens and owner fields, GPS on a third, XMP on half (with a zero-led serial), IPTC with
 * an Arabic caption on a quarter. exifr reads buffers already in memory (as the ingest path has them);
 * exiftool reads the same files from a temp dir with its batch mode (-stay_open) and maxProcs 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import exifr from "exifr";
import { ExifTool } from "exiftool-vendored";
import { extractMetadata } from "../src/archive/media/metadata.ts";
import {
  addTiffEntry,
  ascii,
  nikonMakerNote,
  photo,
  segmentBytes,
  segments,
  tiffStart,
  undef,
  withTiff,
} from "../test/support/exif.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const N = opt("files", 200);
const ROUNDS = opt("rounds", 3);
const JSON_OUT = args.includes("--json");
const log = (...a: unknown[]) => {
  if (!JSON_OUT) console.log(...a);
};

const CAMERAS = [
  ["NIKON CORPORATION", "NIKON D90"],
  ["NIKON CORPORATION", "NIKON D700"],
  ["Canon", "Canon EOS 5D Mark II"],
  ["SONY", "DSC-W320"],
  ["FUJIFILM", "FinePix S5Pro"],
] as const;

function iptcSegment(caption: string, byline: string): Buffer {
  const ds = (rec: number, n: number, b: Buffer) => Buffer.concat([Buffer.from([0x1c, rec, n, b.length >> 8, b.length & 255]), b]);
  const iim = Buffer.concat([ds(1, 90, Buffer.from([0x1b, 0x25, 0x47])), ds(2, 120, Buffer.from(caption)), ds(2, 80, Buffer.from(byline))]);
  const head = Buffer.concat([Buffer.from("8BIM"), Buffer.from([4, 4, 0, 0]), Buffer.alloc(4)]);
  head.writeUInt32BE(iim.length, 8);
  return segmentBytes(0xed, Buffer.concat([Buffer.from("Photoshop 3.0\0", "latin1"), head, iim, Buffer.alloc(iim.length % 2)]));
}

function xmpPacket(i: number): string {
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" aux:SerialNumber="00${40000 + i}" photoshop:City="Damascus"><dc:creator><rdf:Seq><rdf:li>Photographer ${i % 7}</rdf:li></rdf:Seq></dc:creator><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Body ${1000 + i}</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>`;
}

async function makeFiles(dir: string): Promise<{ paths: string[]; buffers: Buffer[] }> {
  const bodies: Buffer[] = [];
  for (let k = 0; k < 10; k++) bodies.push(await photo({ width: 1600, height: 1200, seed: 100 + k, quality: 92 }));
  const paths: string[] = [];
  const buffers: Buffer[] = [];
  for (let i = 0; i < N; i++) {
    const [make, model] = CAMERAS[i % CAMERAS.length]!;
    const day = String(1 + (i % 28)).padStart(2, "0");
    const exif = {
      IFD0: {
        Make: make,
        Model: model,
        Software: "Ver.1.01",
        ...(i % 2 === 0 ? { Artist: `MP-DOC-${i % 9}`, Copyright: "Military Police" } : {}),
      },
      IFD2: {
        DateTimeOriginal: `2012:05:${day} 10:${String(i % 60).padStart(2, "0")}:02`,
        CreateDate: `2012:05:${day} 10:${String(i % 60).padStart(2, "0")}:02`,
        OffsetTimeOriginal: "+03:00",
        ExposureTime: "1/125",
        FNumber: "56/10",
        ISOSpeedRatings: "800",
        FocalLength: "35/1",
        BodySerialNumber: String(3000000 + (i % 5)),
        LensModel: "35mm f/1.8",
        LensSerialNumber: String(200000 + (i % 5)),
        CameraOwnerName: `Unit ${i % 3}`,
        ...(i % 4 === 0 ? { UserComment: `card ${i}` } : {}),
      },
      ...(i % 3 === 0
        ? { IFD3: { GPSLatitudeRef: "N", GPSLatitude: "33/1 30/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "36/1 17/1 0/1" } }
        : {}),
    };
    let head = sharp({ create: { width: 8, height: 8, channels: 3, background: "#777" } }).withExif(exif).jpeg();
    if (i % 2 === 0) head = head.withXmp(xmpPacket(i));
    const tiny = await head.toBuffer();
    const at = tiffStart(tiny);
    let tiff = tiny.subarray(at, at + tiny.readUInt16BE(at - 8) - 8);
    if (make.startsWith("NIKON")) tiff = addTiffEntry(tiff, "exif", undef(0x927c, nikonMakerNote(String(3000000 + (i % 5)), 1000 + i)));
    tiff = addTiffEntry(tiff, "ifd0", ascii(0x013c, `PC-${i % 4}`)); // HostComputer
    const xmpSegs = segments(tiny)
      .filter((s) => s.marker === 0xe1 && tiny.toString("latin1", s.payloadAt, s.payloadAt + 4) === "http")
      .map((s) => tiny.subarray(s.start, s.end));
    let file = withTiff(bodies[i % bodies.length]!, tiff);
    const extra = [...xmpSegs];
    if (i % 4 === 1) extra.push(iptcSegment(`صورة رقم ${i}`, "مصور"));
    if (extra.length) {
      const app1 = segments(file).find((s) => s.marker === 0xe1)!;
      file = Buffer.concat([file.subarray(0, app1.end), ...extra, file.subarray(app1.end)]);
    }
    const path = join(dir, `DSC_${String(i + 1).padStart(4, "0")}.JPG`);
    writeFileSync(path, file);
    paths.push(path);
    buffers.push(file);
  }
  return { paths, buffers };
}

const EXIFR_FULL = {
  tiff: true,
  ifd1: true,
  exif: true,
  gps: true,
  interop: true,
  makerNote: true,
  userComment: true,
  xmp: true,
  iptc: true,
  icc: true,
  jfif: true,
  mergeOutput: false,
  silentErrors: true,
};

function leaves(v: unknown, prefix: string, out: Map<string, unknown>, depth = 0): Map<string, unknown> {
  if (depth < 6 && v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Date)) {
    for (const [k, x] of Object.entries(v)) leaves(x, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else if (v !== undefined) {
    out.set(prefix, v);
  }
  return out;
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, result };
}

/** CPU time (ms) used so far by processes, from /proc (Linux); exiftool's work happens in its perl children. */
function childCpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the process ended; its time is lost to this measurement
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "dalil-exif-bench-"));
  const et = new ExifTool({ maxProcs: 2, taskTimeoutMillis: 60_000 });
  try {
    log(`generating ${N} JPEGs (1600×1200) in ${dir} …`);
    const { paths, buffers } = await makeFiles(dir);
    const mb = buffers.reduce((s, b) => s + b.length, 0) / 1e6;
    log(`${N} files, ${mb.toFixed(1)} MB`);

    const startup = await time(() => Promise.all([et.read(paths[0]!), et.read(paths[1]!)]));
    const exifrOut: unknown[] = [];
    const oursOut: Awaited<ReturnType<typeof extractMetadata>>[] = [];
    const etFast: unknown[] = [];
    const etDeep: Record<string, unknown>[] = [];
    const rates: Record<string, number[]> = { exifr: [], ours: [], exiftoolFast: [], exiftoolDeep: [] };
    const cpu: Record<string, number[]> = { exifr: [], ours: [], exiftoolFast: [], exiftoolDeep: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const a = await time(async () => {
        for (let i = 0; i < N; i++) exifrOut[i] = await exifr.parse(buffers[i]!, EXIFR_FULL);
      });
      rates.exifr!.push(N / (a.ms / 1000));
      cpu.exifr!.push(a.cpuMs / N);
      const b = await time(async () => {
        for (let i = 0; i < N; i++) oursOut[i] = await extractMetadata(buffers[i]!);
      });
      rates.ours!.push(N / (b.ms / 1000));
      cpu.ours!.push(b.cpuMs / N);
      let before = childCpuMs(et.pids);
      const c = await time(() => Promise.all(paths.map(async (p, i) => (etFast[i] = await et.read(p)))));
      rates.exiftoolFast!.push(N / (c.ms / 1000));
      cpu.exiftoolFast!.push((childCpuMs(et.pids) - before + c.cpuMs) / N);
      before = childCpuMs(et.pids);
      const d = await time(() =>
        Promise.all(paths.map(async (p, i) => (etDeep[i] = await et.readRaw(p, { readArgs: ["-G1", "-a", "-u"] })))),
      );
      rates.exiftoolDeep!.push(N / (d.ms / 1000));
      cpu.exiftoolDeep!.push((childCpuMs(et.pids) - before + d.cpuMs) / N);
    }

    // ── coverage ──
    const count = (xs: Map<string, unknown>[]) => median(xs.map((m) => m.size));
    const oursLeaves = oursOut.map((m) => {
      const l = leaves(m.parsed, "", new Map());
      for (const k of [...l.keys()]) if (k.startsWith("file.")) l.delete(k);
      return l;
    });
    const exifrLeaves = exifrOut.map((o) => leaves(o, "", new Map()));
    // Leave out what is not in the file (its name, dates and permissions on this disk, exiftool's own notes)
    // and what exiftool derives from other tags (Composite, MWG), to count only fields read from the file.
    const NOT_FROM_FILE = /^(SourceFile|errors|warnings|ExifTool:|System:|Composite:|MWG:|File:(FileName|Directory|FileSize|FileModifyDate|FileAccessDate|FileInodeChangeDate|FilePermissions|FileType|FileTypeExtension|MIMEType))/;
    const etLeaves = etDeep.map((t) => new Map(Object.entries(t).filter(([k]) => !NOT_FROM_FILE.test(k))));
    const groups = new Map<string, number>();
    for (const m of etLeaves) for (const k of m.keys()) groups.set(k.split(":")[0]!, (groups.get(k.split(":")[0]!) ?? 0) + 1);

    type Probe = [label: string, ours: (i: number) => unknown, exifrGet: (i: number) => unknown, et: (i: number) => unknown, want: (i: number) => unknown];
    const o = (i: number, ...p: string[]) => p.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), oursOut[i]!.parsed);
    const x = (i: number, ...p: string[]) => p.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), exifrOut[i]);
    const e = (i: number, k: string) => etDeep[i]![k];
    const nikon = (i: number) => CAMERAS[i % CAMERAS.length]![0].startsWith("NIKON");
    const probes: Probe[] = [
      ["Make", (i) => oursOut[i]!.camera.make, (i) => x(i, "ifd0", "Make"), (i) => e(i, "IFD0:Make"), (i) => CAMERAS[i % CAMERAS.length]![0]],
      ["EXIF body serial", (i) => oursOut[i]!.camera.serial, (i) => x(i, "exif", "SerialNumber"), (i) => e(i, "ExifIFD:SerialNumber"), (i) => String(3000000 + (i % 5))],
      ["maker-note serial (Nikon)", () => undefined, () => undefined, (i) => (nikon(i) ? e(i, "Nikon:SerialNumber") : undefined), (i) => (nikon(i) ? String(3000000 + (i % 5)) : undefined)],
      ["maker-note shutter count", () => undefined, () => undefined, (i) => (nikon(i) ? e(i, "Nikon:ShutterCount") : undefined), (i) => (nikon(i) ? String(1000 + i) : undefined)],
      ["DateTimeOriginal", (i) => oursOut[i]!.captureTime, (i) => x(i, "exif", "DateTimeOriginal"), (i) => e(i, "ExifIFD:DateTimeOriginal"), (i) => `2012-05-${String(1 + (i % 28)).padStart(2, "0")}T10:${String(i % 60).padStart(2, "0")}:02`],
      ["GPS latitude", (i) => o(i, "gps", "latitude"), (i) => x(i, "gps", "latitude"), (i) => e(i, "GPS:GPSLatitude"), (i) => (i % 3 === 0 ? "33.5" : undefined)],
      ["XMP serial 00nnnnn", (i) => o(i, "xmp", "aux", "SerialNumber"), (i) => x(i, "aux", "SerialNumber"), (i) => e(i, "XMP-aux:SerialNumber"), (i) => (i % 2 === 0 ? `00${40000 + i}` : undefined)],
      ["IPTC Arabic caption", (i) => o(i, "iptc", "Caption"), (i) => x(i, "iptc", "Caption"), (i) => e(i, "IPTC:Caption-Abstract"), (i) => (i % 4 === 1 ? `صورة رقم ${i}` : undefined)],
    ];
    const pad = (n: number) => String(n).padStart(2, "0");
    const norm = (label: string, v: unknown): string | undefined => {
      if (v === undefined || v === null) return undefined;
      if (label.startsWith("DateTime")) {
        // Compare the local date and time only: exifr turns it into a Date in the machine's zone, exiftool
        // keeps the offset in a separate tag.
        if (v instanceof Date) return `${v.getFullYear()}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}T${pad(v.getHours())}:${pad(v.getMinutes())}:${pad(v.getSeconds())}`;
        return String(v).replace(/^(\d{4}):(\d{2}):(\d{2}) /, "$1-$2-$3T").slice(0, 19);
      }
      if (label.startsWith("GPS")) {
        const dms = /(\d+(?:\.\d+)?) deg (\d+(?:\.\d+)?)' (\d+(?:\.\d+)?)"/.exec(String(v));
        const deg = dms ? Number(dms[1]) + Number(dms[2]) / 60 + Number(dms[3]) / 3600 : Number(v);
        return String(Math.round(deg * 1e4) / 1e4);
      }
      return String(v);
    };
    const correct: Record<string, [number, number, number, number]> = {};
    for (const [label, ours, ex, et2, want] of probes) {
      const c: [number, number, number, number] = [0, 0, 0, 0];
      for (let i = 0; i < N; i++) {
        const w = want(i);
        if (w === undefined) continue;
        c[3]++;
        if (norm(label, ours(i)) === String(w)) c[0]++;
        if (norm(label, ex(i)) === String(w)) c[1]++;
        if (norm(label, et2(i)) === String(w)) c[2]++;
      }
      correct[label] = c;
    }

    const summary = {
      files: N,
      megabytes: Number(mb.toFixed(1)),
      filesPerSecond: Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, Math.round(median(v))])),
      cpuMsPerFile: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Number(median(v).toFixed(3))])),
      exiftoolStartupMs: Math.round(startup.ms),
      fieldsPerFileMedian: { ours: count(oursLeaves), exifr: count(exifrLeaves), exiftool: count(etLeaves) },
      exiftoolGroups: Object.fromEntries([...groups].sort((a, b) => b[1] - a[1]).map(([g, n]) => [g, Number((n / N).toFixed(1))])),
      forensicFieldsCorrect: Object.fromEntries(Object.entries(correct).map(([k, [a, b, c, n]]) => [k, { ours: a, exifr: b, exiftool: c, of: n }])),
    };
    if (JSON_OUT) {
      console.log(JSON.stringify(summary, null, 2));
      return;
    }
    const f = summary.filesPerSecond;
    log("\nthroughput (median of rounds; same files, same run)");
    log(`  exifr.parse on buffers, all segments     ${String(f.exifr).padStart(6)} files/s  (${summary.cpuMsPerFile.exifr} CPU-ms/file)`);
    log(`  extractMetadata (ours) on buffers        ${String(f.ours).padStart(6)} files/s  (${summary.cpuMsPerFile.ours} CPU-ms/file)`);
    log(`  exiftool-vendored read(), maxProcs 2     ${String(f.exiftoolFast).padStart(6)} files/s  (${summary.cpuMsPerFile.exiftoolFast} CPU-ms/file incl. perl; batch mode, -fast)`);
    log(`  exiftool readRaw -G1 -a -u, maxProcs 2   ${String(f.exiftoolDeep).padStart(6)} files/s  (${summary.cpuMsPerFile.exiftoolDeep} CPU-ms/file incl. perl; what deepMetadata runs)`);
    log(`  ratio exifr / exiftool(-fast): ${(f.exifr! / f.exiftoolFast!).toFixed(0)}×, ours / exiftool(deep): ${(f.ours! / f.exiftoolDeep!).toFixed(0)}×; exiftool start-up ${summary.exiftoolStartupMs} ms`);
    log("\nfields read from the file, per file (median)", summary.fieldsPerFileMedian);
    log("exiftool's fields by group (average per file)", summary.exiftoolGroups);
    log("\nforensic fields read correctly (ours / exifr / exiftool, of files carrying it)");
    for (const [k, v] of Object.entries(summary.forensicFieldsCorrect)) log(`  ${k.padEnd(28)} ${v.ours} / ${v.exifr} / ${v.exiftool}  of ${v.of}`);
  } finally {
    await et.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
