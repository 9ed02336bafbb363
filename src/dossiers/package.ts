/**
 * Evidence packages: a BagIt bag per recipient holding, for each exhibit, the original bytes, its metadata and
 * every custody event that concerns it as the exact leaf bytes of the log, each with a C2SP tlog-proof against one
 * signed checkpoint shipped in the bag (with its RFC 3161 token when the archive has one), and the log's verifier
 * key. The handover is itself logged (an "export" event naming every exhibit, the recipient and the purpose)
 * before the checkpoint is taken, so the package proves its own handover. Layout: docs/formats/evidence-package.md.
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Invalid, IntegrityError, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { SOFTWARE } from "../core/version.ts";
import { getOriginal } from "../archive/originals.ts";
import { custody, type CustodyEvent } from "../ledger/events.ts";
import { inclusionProof } from "../ledger/merkle.ts";
import { formatTlogProof } from "../ledger/tlog-proof.ts";
import { BagWriter } from "./bagit.ts";

export const PACKAGE_VERSION = "dalil.evidence-package/1";

export interface BuildPackageInput {
  originals: string[];
  recipient: string;
  purpose: string;
  out: string;
  /** Redacted copies are a later step (issue 8); a package now carries the originals. */
  redacted?: false;
  sourceOrganization?: string;
}

export interface PackageExhibit {
  exhibit: string;
  sha256: string;
  sha512: string;
  size: number;
  file: string;
  events: number[];
}

export interface PackageIndex {
  v: typeof PACKAGE_VERSION;
  id: string;
  recipient: string;
  purpose: string;
  createdAt: string;
  createdBy: { kind: string; id: string; role: string };
  software: { name: string; version: string };
  log: { origin: string; size: number; verifierKey: string; timestamped: boolean };
  handover: number;
  exhibits: PackageExhibit[];
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
}

const EXHIBIT_CONCURRENCY = 4;
const EXTENSIONS: Record<string, string> = { jpeg: "jpg", tiff: "tif" };

/** RFC 4180 with CRLF; a cell a spreadsheet would run as a formula gets a leading apostrophe. */
function csv(rows: string[][]): string {
  const cell = (v: string): string => {
    const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

function exhibitNumber(i: number): string {
  return `E-${String(i + 1).padStart(4, "0")}`;
}

export async function buildPackage(ctx: Ctx, actor: Actor, input: BuildPackageInput): Promise<BuildPackageResult> {
  ctx.policy.require(actor, "package.export");
  if (input.redacted) throw new Invalid("Redacted packages are not built yet; build one with the originals or wait for redaction support.", "redacted");
  const recipient = input.recipient.trim();
  const purpose = input.purpose.trim();
  if (!recipient) throw new Invalid("Name the recipient of the package (--recipient): the handover is logged with it.", "recipient");
  if (!purpose) throw new Invalid("Say why the package is handed over (--purpose): the handover is logged with it.", "purpose");
  const shas = [...new Set(input.originals.map((s) => s.trim().toLowerCase()))];
  if (shas.length === 0) throw new Invalid("Name at least one original (--sha256) to put in the package.", "originals");
  for (const s of shas) if (!/^[0-9a-f]{64}$/.test(s)) throw new Invalid(`${s} is not a SHA-256 of 64 hex digits.`, "originals");
  const rows = await ctx.db.db.selectFrom("originals").select(["sha256", "status"]).where("sha256", "in", shas).execute();
  const found = new Set(rows.map((r) => r.sha256));
  const missing = shas.filter((s) => !found.has(s));
  if (missing.length) throw new NotFound(`No original with SHA-256 ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ` (and ${missing.length - 3} more)` : ""} is in this archive.`);

  // Opened before anything is logged: a non-empty output directory fails here, not after the handover event.
  const bag = new BagWriter(input.out);
  const id = newId("pkg");
  const now = ctx.clock.now();
  const handover: CustodyEvent = custody(
    "export",
    actor,
    now,
    [{ id, role: "package" }, ...shas.map((sha256) => ({ sha256, role: "exhibit" }))],
    { package: id, format: PACKAGE_VERSION, recipient, purpose, exhibits: shas.length, content: "originals" },
  );
  const appended = await ctx.db.transaction((tx) => ctx.log.append(tx, handover));
  const cp = await ctx.tree.checkpoint();
  const read = ctx.tree.reader();

  const exhibits: PackageExhibit[] = [];
  const csvRows: string[][] = [["exhibit", "sha256", "sha512", "size", "format", "width", "height", "capture_time", "camera_make", "camera_model", "first_seen_at", "file", "events"]];
  const perExhibit: { exhibit: PackageExhibit; csv: string[]; events: number }[] = [];
  // A few exhibits at once: one's database reads and file writes overlap another's hashing.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < shas.length) {
      const i = next++;
      perExhibit[i] = await addExhibit(i, shas[i]!);
    }
  };
  const addExhibit = async (i: number, sha: string): Promise<{ exhibit: PackageExhibit; csv: string[]; events: number }> => {
    const no = exhibitNumber(i);
    const meta = await getOriginal(ctx, actor, sha);
    const file = `${no}/original.${EXTENSIONS[meta.format] ?? (meta.format.replace(/[^a-z0-9]/g, "") || "bin")}`;
    const entry = await bag.addPayload(file, await ctx.blobs.get(sha));
    if (entry.sha256 !== sha) {
      throw new IntegrityError(`The stored original ${sha} read back as ${entry.sha256}; run \`dalil verify\` before building a package.`);
    }
    const events = (await ctx.log.eventsFor(sha)).filter((e) => e.seq < cp.size);
    for (const e of events) {
      const proof = formatTlogProof({ index: e.seq, proof: await inclusionProof(e.seq, cp.size, read), checkpoint: cp.note });
      await bag.addPayload(`${no}/events/${e.seq}.json`, e.leaf);
      await bag.addPayload(`${no}/events/${e.seq}.tlog-proof`, proof);
    }
    const seqs = events.map((e) => e.seq);
    const metadata = {
      exhibit: no,
      sha256: sha,
      sha512: entry.sha512,
      size: entry.size,
      file: `data/${file}`,
      format: meta.format,
      mediaKind: meta.mediaKind,
      status: meta.status,
      width: meta.width,
      height: meta.height,
      captureTime: meta.captureTime,
      camera: meta.camera,
      phash: meta.phash,
      firstSeenAt: meta.firstSeenAt,
      events: seqs,
    };
    await bag.addPayload(`${no}/metadata.json`, `${JSON.stringify(metadata, null, 2)}\n`);
    return {
      exhibit: { exhibit: no, sha256: sha, sha512: entry.sha512, size: entry.size, file: `data/${file}`, events: seqs },
      csv: [no, sha, entry.sha512, String(entry.size), meta.format, String(meta.width ?? ""), String(meta.height ?? ""), meta.captureTime ?? "", meta.camera.make ?? "", meta.camera.model ?? "", meta.firstSeenAt, `data/${file}`, seqs.join(" ")],
      events: events.length,
    };
  };
  await Promise.all(Array.from({ length: Math.min(EXHIBIT_CONCURRENCY, shas.length) }, worker));
  let eventCount = 0;
  for (const x of perExhibit) {
    exhibits.push(x.exhibit);
    csvRows.push(x.csv);
    eventCount += x.events;
  }

  const handoverProof = formatTlogProof({ index: appended.seq, proof: await inclusionProof(appended.seq, cp.size, read), checkpoint: cp.note });
  await bag.addPayload(`handover/${appended.seq}.json`, appended.leaf);
  await bag.addPayload(`handover/${appended.seq}.tlog-proof`, handoverProof);
  await bag.addPayload("log/checkpoint", cp.note);
  if (cp.timestampToken) await bag.addPayload("log/checkpoint.tsr", cp.timestampToken);
  await bag.addPayload("log/log.vkey", `${ctx.tree.verifierKey}\n`);
  await bag.addPayload("exhibits.csv", csv(csvRows));
  const index: PackageIndex = {
    v: PACKAGE_VERSION,
    id,
    recipient,
    purpose,
    createdAt: now.toISOString(),
    createdBy: handover.actor,
    software: { ...SOFTWARE },
    log: { origin: ctx.tree.origin, size: cp.size, verifierKey: ctx.tree.verifierKey, timestamped: Boolean(cp.timestampToken) },
    handover: appended.seq,
    exhibits,
  };
  await bag.addPayload("package.json", `${canonicalJson(index)}\n`);
  bag.addTagFile("VERIFY.txt", verifyText(index));
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
    ],
  });
  return { id, dir: input.out, exhibits: shas.length, events: eventCount, handoverSeq: appended.seq, checkpointSize: cp.size, octets, files: count };
}

function verifyText(index: PackageIndex): string {
  const first = index.exhibits[0]!;
  const ev = first.events[0] ?? index.handover;
  return `HOW TO CHECK THIS EVIDENCE PACKAGE
==================================

Package ${index.id}, made ${index.createdAt} by ${index.createdBy.id} (${index.createdBy.role}) with ${index.software.name} ${index.software.version}
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
   The same SHA-256 is named in every custody event of that exhibit (data/E-nnnn/events/<n>.json).

3. The custody events are entries of the archive's signed log

   data/log/log.vkey is the log's verifier key. Do not take it from this package alone: compare it with the key
   the archive publishes (dalil log key) or that was given to you separately.
   Each data/E-nnnn/events/<n>.json is the exact bytes of log entry <n>; next to it, <n>.tlog-proof is a C2SP
   tlog-proof@v1 inclusion proof of it against the signed checkpoint in data/log/checkpoint.

   With dalil:
     dalil verify-proof --proof data/${first.exhibit}/events/${ev}.tlog-proof --leaf data/${first.exhibit}/events/${ev}.json --key data/log/log.vkey

   Independently, with the Go tool in dalil's source (tools/verify-go, built from golang.org/x/mod):
     verify-go proof -vkey @data/log/log.vkey -proof data/${first.exhibit}/events/${ev}.tlog-proof -leaf data/${first.exhibit}/events/${ev}.json
     verify-go checkpoint -vkey @data/log/log.vkey -checkpoint data/log/checkpoint

4. Everything at once (the bag, every proof, every exhibit's hash, the handover)

     dalil package verify .

   It exits 0 and prints "ok" when all holds, or exits 1 naming each problem.

5. The handover of this package is itself in the log

   data/handover/${index.handover}.json is the "export" event that records this package: its recipient, purpose and
   the SHA-256 of every exhibit. It was logged before the checkpoint was signed, so
     dalil verify-proof --proof data/handover/${index.handover}.tlog-proof --leaf data/handover/${index.handover}.json --key data/log/log.vkey
   proves the handover too.

6. When the checkpoint was signed (only if data/log/checkpoint.tsr exists)

   checkpoint.tsr is an RFC 3161 timestamp token over the exact bytes of data/log/checkpoint. With the
   timestamp authority's CA certificate (obtained from the authority, not from this package):
     openssl ts -verify -data data/log/checkpoint -in data/log/checkpoint.tsr -token_in -CAfile TSA-CA.pem
   OpenSSL prints "Verification: OK". To read the time:  openssl ts -reply -in data/log/checkpoint.tsr -token_in -text
${index.log.timestamped ? "   This package has a token." : "   This package has no token: the archive had no timestamp authority configured when it was made."}
`;
}
