/**
 * Evidence packages: a BagIt bag per recipient holding, for each exhibit, the original bytes, its metadata and
 * every custody event that concerns it as the exact leaf bytes of the log, each with a C2SP tlog-proof against one
 * signed checkpoint shipped in the bag (with its RFC 3161 token when the archive has one), and the log's verifier
 * key. The handover is itself logged (an "export" event naming every exhibit, the recipient and the purpose)
 * before the checkpoint is taken, so the package proves its own handover. Layout: docs/formats/evidence-package.md.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, IntegrityError, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import { SOFTWARE } from "../core/version.ts";
import { getOriginals, type OriginalView } from "../archive/index.ts";
import { custody, type CustodyEvent } from "../ledger/index.ts";
import { openingsOf, secret } from "../ledger/index.ts";
import type { AppendedEvent } from "../ledger/index.ts";
import { inclusionProofs } from "../ledger/index.ts";
import { formatTlogProof } from "../ledger/index.ts";
import { BagWriter } from "./bagit.ts";
import { blurredImage, redactedImage, REDACTION_METHOD, type Region } from "./redaction.ts";

/** Version 2 keeps every event once in data/events/ (version 1 copied each into every exhibit's folder). */
export const PACKAGE_VERSION = "dalil.evidence-package/2";

export type Clearance = "original" | "redacted" | "blurred";
export const CLEARANCES: readonly Clearance[] = ["original", "redacted", "blurred"];
export const REDACTION_MANIFEST_VERSION = "dalil.redaction-manifest/1";

export interface BuildPackageInput {
  originals: string[];
  recipient: string;
  purpose: string;
  out: string;
  /** What the recipient may see: the originals (default), redacted copies, or blurred copies. */
  clearance?: Clearance;
  sourceOrganization?: string;
  onProgress?: (done: number, total: number, note?: string) => void;
}

/** A copy given in place of the original: the bag holds it and its redaction manifest, not the original. */
export interface PackageCopy {
  sha256: string;
  size: number;
  method: "filled" | "blurred";
  regions: Region[];
  manifest: string;
}

export interface PackageExhibit {
  exhibit: string;
  sha256: string;
  sha512: string;
  size: number;
  file: string;
  events: number[];
  /** The dossier exhibit (E-0001) this photo stands for, when the package was built from a dossier. */
  dossierExhibit?: string;
  copy?: PackageCopy;
}

export interface PackageDossier {
  id: string;
  version: number;
  sha256: string;
  file: string;
  freezeEvent: number;
  events: number[];
}

export interface PackageIndex {
  v: typeof PACKAGE_VERSION;
  id: string;
  recipient: string;
  purpose: string;
  clearance?: Clearance;
  createdAt: string;
  createdBy: { kind: string; id: string; role: string };
  software: { name: string; version: string };
  log: { origin: string; size: number; verifierKey: string; timestamped: boolean };
  handover: number;
  exhibits: PackageExhibit[];
  dossier?: PackageDossier;
  report?: { html: string; pdf: string; pdfSha256: string; pages: number };
}

export interface BuildPackageResult {
  id: string;
  dir: string;
  exhibits: number;
  events: number;
  handoverSeq: number;
  checkpointSize: number;
  octets: number;
  files: number;
  /** The package an earlier build into the same directory was making when its process died (marked interrupted). */
  resumed?: string;
}

/** One photo in a package: its directory name in the bag and the original it is (or is a copy of). */
export interface PackageItem {
  exhibit: string;
  sha256: string;
  dossierExhibit?: string;
}

/** What buildDossierPackage adds to a package: the frozen version, its events, and a report maker. */
export interface PackageExtras {
  dossier?: { id: string; version: number; snapshot: string; sha256: string; freezeEvent: number; csv: string[][] };
  /** Builds the report into outDir (called before the handover is logged, so its hash is in the handover). */
  report?: (outDir: string, onProgress: (done: number, total: number) => void) => Promise<{ html: string; pdf: string; pages: number }>;
  reportUnits?: number;
  handoverDetail?: Record<string, unknown>;
}

const EXHIBIT_CONCURRENCY = 4;
/** Small files (events, proofs, metadata) created at once: their cost is the kernel's, spread over libuv's pool. */
const SMALL_FILE_CONCURRENCY = 16;
const EXTENSIONS: Record<string, string> = { jpeg: "jpg", tiff: "tif" };

/** RFC 4180 with CRLF; a cell a spreadsheet would run as a formula gets a leading apostrophe. */
export function csv(rows: string[][]): string {
  const cell = (v: string): string => {
    const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

function exhibitNumber(i: number): string {
  return `E-${String(i + 1).padStart(4, "0")}`;
}

export function checkRecipient(input: { recipient: string; purpose: string; clearance?: string }): { recipient: string; purpose: string; clearance: Clearance } {
  const recipient = (input.recipient ?? "").trim();
  const purpose = (input.purpose ?? "").trim();
  if (!recipient) throw new Invalid(say("package.recipientNeeded"), "recipient");
  if (!purpose) throw new Invalid(say("package.purposeNeeded"), "purpose");
  const clearance = input.clearance ?? "original";
  if (!(CLEARANCES as readonly string[]).includes(clearance)) throw new Invalid(say("package.clearance", { clearances: CLEARANCES.join(", "), clearance }), "clearance");
  return { recipient, purpose, clearance: clearance as Clearance };
}

export async function buildPackage(ctx: Ctx, actor: Actor, input: BuildPackageInput): Promise<BuildPackageResult> {
  ctx.policy.require(actor, "package.export");
  const shas = [...new Set(input.originals.map((s) => s.trim().toLowerCase()))];
  if (shas.length === 0) throw new Invalid(say("package.noOriginals"), "originals");
  for (const s of shas) if (!/^[0-9a-f]{64}$/.test(s)) throw new Invalid(say("package.notSha256", { value: s.slice(0, 80) }), "originals");
  return writePackage(ctx, actor, { ...input, items: shas.map((sha256, i) => ({ exhibit: exhibitNumber(i), sha256 })) });
}

export interface WriteInput extends Omit<BuildPackageInput, "originals"> {
  items: PackageItem[];
  /** The package id, when the caller must know it before the build (a job, to recover after a crash). */
  packageId?: string;
}

/** The package of a list of photos (with a dossier's extras): the one way every package is written. */
export async function writePackage(ctx: Ctx, actor: Actor, input: WriteInput, extras: PackageExtras = {}): Promise<BuildPackageResult> {
  ctx.policy.require(actor, "package.export");
  const { recipient, purpose, clearance } = checkRecipient(input);
  if (input.packageId !== undefined && !PACKAGE_ID.test(input.packageId)) throw new Invalid(say("package.badId", { id: input.packageId }), "packageId");
  const shas = input.items.map((i) => i.sha256);
  if (new Set(shas).size !== shas.length) throw new Invalid(say("package.photoTwice"), "originals");
  // Read once: to refuse an unknown original here, before anything is written or logged, and for the metadata.
  const metas = await getOriginals(ctx, actor, shas);
  const missing = shas.filter((s) => !metas.has(s));
  if (missing.length) throw new NotFound(say("package.noOriginal", { count: missing.length, sha256: missing[0]! }));
  if (clearance !== "original") ctx.policy.require(actor, "original.view");

  // A directory an earlier build of ours left when its process died: that handover is marked interrupted and the
  // partial bag cleared, so the same command run again resumes from a clean state.
  const resumed = await clearInterrupted(ctx, actor, input.out);
  // Opened before anything is logged: a non-empty output directory fails here, not after the handover event.
  const bag = new BagWriter(input.out);
  const id = input.packageId ?? newId("pkg");
  // Named in the bag directory while it is being built, removed before the tag files are written.
  writeFileSync(join(input.out, BUILDING_MARKER), `${JSON.stringify({ package: id, startedAt: ctx.clock.now().toISOString() })}\n`, { mode: 0o600 });
  const now = ctx.clock.now();
  const total = shas.length * 2 + (extras.report ? (extras.reportUnits ?? 1) : 0);
  let done = 0;
  const tick = (note?: string): void => input.onProgress?.(++done, total, note);

  // 1. The photos (or their copies) and the report, before the handover: the handover names their hashes.
  const perItem: { exhibit: PackageExhibit; meta: OriginalView }[] = [];
  await pool(input.items.length, async (i) => {
    const item = input.items[i]!;
    perItem[i] = { exhibit: await addContent(ctx, bag, item, metas.get(item.sha256)!, clearance, now), meta: metas.get(item.sha256)! };
    tick("exhibits");
  });
  let report: PackageIndex["report"];
  if (extras.report) {
    const tmp = mkdtempSync(join(tmpdir(), "dalil-report-"));
    try {
      const base = done;
      const r = await extras.report(tmp, (d, t) => input.onProgress?.(base + Math.round((d / Math.max(t, 1)) * (extras.reportUnits ?? 1)), total, "report"));
      done = base + (extras.reportUnits ?? 1);
      const entries = new Map<string, string>();
      for (const rel of readdirSync(tmp, { recursive: true }).map(String).sort()) {
        const abs = join(tmp, rel);
        if (!statSync(abs).isFile()) continue;
        const e = await bag.addPayloadFile(`report/${rel.split(sep).join("/")}`, abs);
        entries.set(abs, e.sha256);
      }
      const rel = (abs: string): string => `data/report/${relative(tmp, abs).split(sep).join("/")}`;
      report = { html: rel(r.html), pdf: rel(r.pdf), pdfSha256: entries.get(resolve(r.pdf)) ?? entries.get(r.pdf) ?? "", pages: r.pages };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  // 2. The handover: recipient, what (every original, every copy's hash, the dossier version, the report), why.
  const copies = Object.fromEntries(perItem.filter((x) => x.exhibit.copy).map((x) => [x.exhibit.exhibit, x.exhibit.copy!.sha256]));
  const handover: CustodyEvent = custody(
    "export",
    actor,
    now,
    [{ id, role: "package" }, ...(extras.dossier ? [{ id: extras.dossier.id, role: "dossier" }] : []), ...shas.map((sha256) => ({ sha256, role: "exhibit" }))],
    {
      package: id,
      format: PACKAGE_VERSION,
      recipient: secret(recipient),
      purpose: secret(purpose),
      exhibits: shas.length,
      content: clearance === "original" ? "originals" : clearance,
      ...(Object.keys(copies).length ? { copies } : {}),
      ...(report ? { report: report.pdfSha256 } : {}),
      ...(extras.handoverDetail ?? {}),
    },
  );
  const appended = await ctx.db.transaction((tx) => ctx.log.append(tx, handover));
  // From here on the handover is in the log: if the bag cannot be finished, the log must say so too, or it would
  // record a handover that never happened.
  try {
    const cp = await ctx.tree.checkpoint();

    // 3. Every custody event of the photos and of the dossier, this handover among them, each once in events/ with
    // its proof: an event that concerns many photos (a handover names all of them) is not copied per photo, which
    // made a bag grow with the square of its photos. Then each photo's metadata, naming its events.
    const eventsOf = await ctx.log.eventsForMany([...shas, ...(extras.dossier ? [extras.dossier.id] : [])]);
    const inPackage = (key: string): AppendedEvent[] => (eventsOf.get(key) ?? []).filter((e) => e.seq < cp.size);
    const shared = new Map<number, AppendedEvent>([[appended.seq, appended]]);
    for (const list of eventsOf.values()) for (const e of list) if (e.seq < cp.size) shared.set(e.seq, e);
    const proofs = await inclusionProofs([...shared.keys()], cp.size, ctx.tree.reader());
    const proofOf = (seq: number): string => formatTlogProof({ index: seq, proof: proofs.get(seq)!, checkpoint: cp.published });
    const ordered = [...shared.values()].sort((a, b) => a.seq - b.seq);
    await pool(ordered.length, async (i) => {
      const e = ordered[i]!;
      await bag.addPayload(`events/${e.seq}.json`, e.leaf);
      await bag.addPayload(`events/${e.seq}.tlog-proof`, proofOf(e.seq));
    }, SMALL_FILE_CONCURRENCY);
    // The handover's recipient and purpose are commitments in its leaf (typed words never go into the log in the
    // clear); the court gets their openings beside the leaf, so it can check them against data/package.json.
    const handoverOpenings = ((await openingsOf(ctx.db.db, [appended.seq])).get(appended.seq) ?? [])
      .filter((o) => COURT_OPENINGS.includes(o.field))
      .map((o) => ({ field: o.field, salt: o.salt, value: JSON.parse(o.value) as unknown }));
    await bag.addPayload(`events/${appended.seq}.openings.json`, `${canonicalJson(handoverOpenings)}\n`);
    const eventCount = shared.size;
    await pool(perItem.length, async (i) => {
      const { exhibit, meta } = perItem[i]!;
      exhibit.events = inPackage(exhibit.sha256).map((e) => e.seq);
      const metadata = {
        exhibit: exhibit.exhibit,
        ...(exhibit.dossierExhibit ? { dossierExhibit: exhibit.dossierExhibit } : {}),
        sha256: exhibit.sha256,
        sha512: exhibit.sha512,
        size: exhibit.size,
        file: exhibit.file,
        ...(exhibit.copy ? { copy: exhibit.copy } : {}),
        format: meta.format,
        mediaKind: meta.mediaKind,
        status: meta.status,
        width: meta.width,
        height: meta.height,
        captureTime: meta.captureTime,
        camera: meta.camera,
        phash: meta.phash,
        firstSeenAt: meta.firstSeenAt,
        events: exhibit.events,
      };
      await bag.addPayload(`${exhibit.exhibit}/metadata.json`, `${JSON.stringify(metadata, null, 2)}\n`);
      tick("events");
    }, SMALL_FILE_CONCURRENCY);
    const exhibits = perItem.map((x) => x.exhibit);
    const csvRows: string[][] = [["exhibit", "sha256", "sha512", "size", "format", "width", "height", "capture_time", "camera_make", "camera_model", "first_seen_at", "file", "events", "content", "copy_sha256", "dossier_exhibit"]];
    for (const { exhibit: x, meta } of perItem) {
      csvRows.push([x.exhibit, x.sha256, x.sha512, String(x.size), meta.format, String(meta.width ?? ""), String(meta.height ?? ""), meta.captureTime ?? "", meta.camera.make ?? "", meta.camera.model ?? "", meta.firstSeenAt, x.file, x.events.join(" "), x.copy ? x.copy.method : "original", x.copy?.sha256 ?? "", x.dossierExhibit ?? ""]);
    }

    // The dossier version exactly as frozen (its SHA-256 is in the freeze event) and the dossier's own events.
    let dossier: PackageDossier | undefined;
    if (extras.dossier) {
      const dx = extras.dossier;
      await bag.addPayload("dossier/version.json", dx.snapshot);
      const events = inPackage(dx.id);
      await bag.addPayload("dossier/exhibits.csv", csv(dx.csv));
      dossier = { id: dx.id, version: dx.version, sha256: dx.sha256, file: "data/dossier/version.json", freezeEvent: dx.freezeEvent, events: events.map((e) => e.seq) };
    }

    // The checkpoint as published, with the witnesses' cosignatures; the timestamp token covers the note as the
    // log signed it (before any witness answered), shipped beside it when the two differ.
    await bag.addPayload("log/checkpoint", cp.published);
    if (cp.timestampToken) await bag.addPayload("log/checkpoint.tsr", cp.timestampToken);
    if (cp.timestampToken && cp.published !== cp.note) await bag.addPayload("log/checkpoint.log-signed", cp.note);
    const witnesses = ctx.tree.witnesses;
    if (witnesses) await bag.addPayload("log/witnesses.policy", witnesses.source.text);
    await bag.addPayload("log/log.vkey", `${ctx.tree.verifierKey}\n`);
    await bag.addPayload("exhibits.csv", csv(csvRows));
    const index: PackageIndex = {
      v: PACKAGE_VERSION,
      id,
      recipient,
      purpose,
      clearance,
      createdAt: now.toISOString(),
      createdBy: handover.actor,
      software: { ...SOFTWARE },
      log: { origin: ctx.tree.origin, size: cp.size, verifierKey: ctx.tree.verifierKey, timestamped: Boolean(cp.timestampToken) },
      handover: appended.seq,
      exhibits,
      ...(dossier ? { dossier } : {}),
      ...(report ? { report } : {}),
    };
    await bag.addPayload("package.json", `${canonicalJson(index)}\n`);
    bag.addTagFile("VERIFY.txt", verifyText(index, { witnessed: Boolean(witnesses), logSigned: cp.timestampToken !== null && cp.published !== cp.note }));
    rmSync(join(input.out, BUILDING_MARKER));
    const { octets, count } = bag.finish({
      sourceOrganization: input.sourceOrganization ?? "dalil archive",
      externalIdentifier: id,
      externalDescription: `Evidence package of ${shas.length} exhibit(s) for ${recipient}: ${purpose}`,
      baggingDate: now.toISOString().slice(0, 10),
      extra: [
        ["Bag-Software-Agent", `${SOFTWARE.name} ${SOFTWARE.version}`],
        ["Log-Origin", ctx.tree.origin],
        ["Log-Checkpoint-Size", String(cp.size)],
        ["Handover-Event", String(appended.seq)],
        ["Content", clearance === "original" ? "originals" : `${clearance} copies`],
      ],
    });
    return { id, dir: input.out, exhibits: shas.length, events: eventCount, handoverSeq: appended.seq, checkpointSize: cp.size, octets, files: count, ...(resumed ? { resumed } : {}) };
  } catch (e) {
    await logUnfinished(ctx, actor, id, e);
    throw e;
  }
}

const PACKAGE_ID = /^pkg_[A-Za-z0-9_-]{1,80}$/;
const BUILDING_MARKER = ".dalil-package-building";

/**
 * If out holds a bag our build was writing when its process died (its marker names the package), marks that
 * package's handover interrupted and empties the directory (its contents, not the directory: it may be a mount).
 */
async function clearInterrupted(ctx: Ctx, actor: Actor, out: string): Promise<string | null> {
  const marker = join(out, BUILDING_MARKER);
  if (!existsSync(marker)) return null;
  let id: unknown;
  try {
    id = (JSON.parse(readFileSync(marker, "utf8")) as { package?: unknown }).package;
  } catch {
    id = null;
  }
  if (typeof id !== "string" || !PACKAGE_ID.test(id)) {
    throw new Conflict(say("package.markerUnreadable", { dir: out, marker: BUILDING_MARKER }));
  }
  await markInterrupted(ctx, actor, [id]);
  for (const name of readdirSync(out)) rmSync(join(out, name), { recursive: true, force: true });
  return id;
}

/**
 * Packages whose process died after logging their handover: each whose handover is in the log with no failure
 * after it gets one (reason "interrupted"), so the log never shows a handover that did not happen. Returns the ids
 * so marked.
 */
export async function markInterrupted(ctx: Ctx, actor: Actor, packageIds: readonly string[]): Promise<string[]> {
  const marked: string[] = [];
  for (const id of packageIds) {
    const exports = (await ctx.log.eventsFor(id)).filter((e) => e.event.type === "export" && e.event.detail.package === id);
    if (exports.some((e) => e.event.outcome === "success") && !exports.some((e) => e.event.outcome === "failure")) {
      await logUnfinished(ctx, actor, id, { code: "interrupted" });
      marked.push(id);
    }
  }
  return marked;
}

/** Records that the package whose handover was logged was not finished, and why (the bag left behind is incomplete). */
async function logUnfinished(ctx: Ctx, actor: Actor, id: string, e: unknown): Promise<void> {
  // The error's code only (ENOSPC, integrity, …): its message may name local paths, and the log is published.
  const code = (e as { code?: unknown }).code;
  const reason = typeof code === "string" ? code : e instanceof Error ? e.name : "unknown";
  const event = custody("export", actor, ctx.clock.now(), [{ id, role: "package" }], { package: id, completed: false, reason }, "failure");
  await ctx.db.transaction((tx) => ctx.log.append(tx, event)).catch(() => {
    // The log itself failing is reported by the error being rethrown; there is nothing more to record it in.
  });
}

/** Runs fn(0..n-1) a few at a time: one photo's reads and writes overlap another's hashing. */
async function pool(n: number, fn: (i: number) => Promise<void>, width = EXHIBIT_CONCURRENCY): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

/** Writes an item's original, or its copy and redaction manifest, into the bag. */
async function addContent(ctx: Ctx, bag: BagWriter, item: PackageItem, meta: OriginalView, clearance: Clearance, now: Date): Promise<PackageExhibit> {
  const sha = item.sha256;
  const base = { exhibit: item.exhibit, ...(item.dossierExhibit ? { dossierExhibit: item.dossierExhibit } : {}), events: [] as number[] };
  if (clearance === "original") {
    const file = `${item.exhibit}/original.${EXTENSIONS[meta.format] ?? (meta.format.replace(/[^a-z0-9]/g, "") || "bin")}`;
    // Decrypted straight into the bag and hashed as written, on the blob store's worker threads; the store refuses
    // bytes that do not hash to the original's SHA-256.
    const entry = await bag.addPayloadWritten(file, (target) => ctx.blobs.decryptToFile(sha, target));
    return { ...base, sha256: sha, sha512: entry.sha512, size: entry.size, file: `data/${file}` };
  }
  // The original's own hashes, from its bytes as stored (the copy is derived from the same bytes).
  const h256 = createHash("sha256");
  const h512 = createHash("sha512");
  let size = 0;
  for await (const c of await ctx.blobs.get(sha)) {
    const b = c as Buffer;
    h256.update(b);
    h512.update(b);
    size += b.length;
  }
  if (h256.digest("hex") !== sha) throw new IntegrityError(say("package.originalAltered", { sha256: sha }));
  const red = clearance === "redacted" ? await redactedImage(ctx, sha) : await blurredImage(ctx, sha);
  const regions = red.regions;
  const bytes = red.bytes;
  const method = regions.length ? "filled" : "blurred";
  const file = `${item.exhibit}/${method === "filled" ? "redacted" : "blurred"}.jpg`;
  const entry = await bag.addPayload(file, bytes);
  const manifestPath = `${item.exhibit}/redaction.json`;
  const manifest = {
    v: REDACTION_MANIFEST_VERSION,
    exhibit: item.exhibit,
    original: { sha256: sha, sha512: h512.digest("hex"), size, format: meta.format, width: meta.width, height: meta.height },
    copy: { file: `data/${file}`, sha256: entry.sha256, sha512: entry.sha512, size: entry.size, mediaType: red.mediaType },
    method,
    description: REDACTION_METHOD[method],
    regions,
    madeAt: now.toISOString(),
    software: { ...SOFTWARE },
  };
  await bag.addPayload(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { ...base, sha256: sha, sha512: manifest.original.sha512, size, file: `data/${file}`, copy: { sha256: entry.sha256, size: entry.size, method, regions, manifest: `data/${manifestPath}` } };
}

/** The handover fields whose openings a package carries to its recipient (docs/packages.md). */
export const COURT_OPENINGS: readonly string[] = ["detail.recipient", "detail.purpose"];

function verifyText(index: PackageIndex, log: { witnessed: boolean; logSigned: boolean }): string {
  const tsData = log.logSigned ? "data/log/checkpoint.log-signed" : "data/log/checkpoint";
  const first = index.exhibits[0]!;
  const ev = first.events[0] ?? index.handover;
  return `HOW TO CHECK THIS EVIDENCE PACKAGE
==================================

Package ${index.id}, made ${index.createdAt} by ${index.createdBy.kind === "operator" ? "an operator at the archive's server" : index.createdBy.id} (${index.createdBy.role}) with ${index.software.name} ${index.software.version}
for: ${index.recipient}
purpose: ${index.purpose}
exhibits: ${index.exhibits.length}   custody log: ${index.log.origin}, checkpoint of ${index.log.size} events

This directory is a BagIt 1.0 bag (RFC 8493). You need no access to the archive, no database and no network to
check it. Run every command below in this directory.

1. Nothing was changed, added or removed (standard tools)

     sha256sum -c manifest-sha256.txt
     sha512sum -c manifest-sha512.txt
     sha256sum -c tagmanifest-sha256.txt

   Every line must end in "OK". Also check that data/ holds no file the manifests do not list (a BagIt
   validator such as bagit-python or the Library of Congress bagger does this; so does step 4).

2. Each exhibit is the photo it says it is

   data/exhibits.csv and data/E-nnnn/metadata.json give each exhibit's SHA-256. Compare with
     sha256sum data/${first.file.slice("data/".length)}
   The same SHA-256 is named in every custody event of that exhibit (the "events" its metadata.json lists, each
   data/events/<n>.json), this package's handover among them (data/events/${index.handover}.json, step 5).

3. The custody events are entries of the archive's signed log

   data/log/log.vkey is the log's verifier key. Do not take it from this package alone: compare it with the key
   the archive publishes (dalil log key) or that was given to you separately.
   Each data/events/<n>.json is the exact bytes of log entry <n>; next to it, <n>.tlog-proof is a C2SP
   tlog-proof@v1 inclusion proof of it against the signed checkpoint in data/log/checkpoint. An event that
   concerns several exhibits (a handover names every one) is there once.

   With dalil:
     dalil verify-proof --proof data/events/${ev}.tlog-proof --leaf data/events/${ev}.json --key data/log/log.vkey

   Independently, with the Go tool in dalil's source (tools/verify-go, built from golang.org/x/mod):
     verify-go proof -vkey @data/log/log.vkey -proof data/events/${ev}.tlog-proof -leaf data/events/${ev}.json
     verify-go checkpoint -vkey @data/log/log.vkey -checkpoint data/log/checkpoint

4. Everything at once (the bag, every proof, every exhibit's hash, the handover)

     dalil package verify .

   It exits 0 and prints "ok" when all holds, or exits 1 naming each problem.

${copiesText(index)}${dossierText(index)}5. The handover of this package is itself in the log

   data/events/${index.handover}.json is the "export" event that records this package: its recipient, purpose and
   the SHA-256 of every exhibit (data/package.json names it as "handover"). Words a person typed never enter the
   log in the clear: the recipient and purpose are there as "commit:<hex>", the SHA-256 of the canonical JSON
   (RFC 8785) of {"event": <the event's id>, "field": "detail.recipient", "salt": <hex>, "value": <the text>}.
   data/events/${index.handover}.openings.json gives each field's salt and value, so the commitment can be
   recomputed and compared (dalil package verify does). It was logged before the checkpoint was signed, so
     dalil verify-proof --proof data/events/${index.handover}.tlog-proof --leaf data/events/${index.handover}.json --key data/log/log.vkey
   proves the handover too.

6. When the checkpoint was signed (only if data/log/checkpoint.tsr exists)

   checkpoint.tsr is an RFC 3161 timestamp token over the exact bytes of ${tsData}${log.logSigned ? " (the\n   checkpoint as the log signed it, before the witnesses cosigned it)" : ""}. With the
   timestamp authority's CA certificate (obtained from the authority, not from this package):
     openssl ts -verify -data ${tsData} -in data/log/checkpoint.tsr -token_in -CAfile TSA-CA.pem
   OpenSSL prints "Verification: OK". To read the time:  openssl ts -reply -in data/log/checkpoint.tsr -token_in -text
${index.log.timestamped ? "   This package has a token." : "   This package has no token: the archive had no timestamp authority configured when it was made."}
${log.witnessed ? witnessText() : ""}`;
}

function witnessText(): string {
  return `
7. Witnesses saw the same log (data/log/witnesses.policy)

   Independent witnesses (C2SP tlog-witness) cosign a checkpoint only if it is consistent with every checkpoint
   of this log they saw before, so the archive cannot show you one history and someone else another. Their
   cosignatures are the extra "— <witness> …" lines of data/log/checkpoint. data/log/witnesses.policy (C2SP
   tlog-policy) names the witnesses the archive uses and how many must agree; as with the log key, compare it
   with a policy you obtained apart from this package (from the witnesses' operators) and pass that one:
     dalil package verify . --witness-policy YOUR.policy
     verify-go checkpoint -vkey @data/log/log.vkey -checkpoint data/log/checkpoint -policy YOUR.policy
   Both exit 1 unless the checkpoint's cosignatures meet the policy's quorum.
`;
}

function copiesText(index: PackageIndex): string {
  const x = index.exhibits.find((e) => e.copy);
  if (!x) return "";
  return `4a. This package holds ${index.clearance} copies, not the originals

   For each exhibit, data/E-nnnn/redaction.json is the redaction manifest: it names the original's SHA-256 and
   SHA-512 (the hashes every custody event of the exhibit names) and the copy's own hashes, how the copy was made
   (marked regions filled opaque, or the whole photo blurred) and the regions. The copy's SHA-256 is also in the
   handover event (step 5, "copies"), so neither the copy nor its manifest can be swapped unseen:
     sha256sum ${x.file}
   must print ${x.copy!.sha256}, the value in ${x.copy!.manifest} and in the handover event.
   The original itself stays in the archive; whoever holds it can check it against the SHA-256 named here.

`;
}

function dossierText(index: PackageIndex): string {
  const d = index.dossier;
  if (!d) return "";
  return `4b. The dossier version this package was built from

   data/dossier/version.json is version ${d.version} of dossier ${d.id} exactly as it was frozen: the exhibits with their
   numbers and the reasoning for each. Its SHA-256 is in the freeze event, entry ${d.freezeEvent} of the log:
     sha256sum data/dossier/version.json
   must print ${d.sha256}, the "sha256" in data/events/${d.freezeEvent}.json, which
     dalil verify-proof --proof data/events/${d.freezeEvent}.tlog-proof --leaf data/events/${d.freezeEvent}.json --key data/log/log.vkey
   proves. data/package.json ("dossier", "events") lists every custody event of the dossier (created, exhibits
   added and withdrawn, versions frozen, this handover), each in data/events/ with its proof.${index.report ? `\n   The report is ${index.report.pdf} (${index.report.pages} pages; its SHA-256 is in the handover event, "report").` : ""}

`;
}
