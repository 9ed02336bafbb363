/**
 * Checks an evidence package with nothing but its files: no archive, no database, no network. The bag must be
 * complete and valid; every event file must be the leaf its tlog-proof proves against the package's one signed
 * checkpoint under the log key; every exhibit's bytes must hash to the SHA-256 its events name; the handover
 * event must name every exhibit. Each problem is reported as a sentence naming the file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../core/canonical-json.ts";
import { DalilError } from "../core/errors.ts";
import { parseLeaf, type CustodyEvent } from "../ledger/index.ts";
import { isCommitment, opens } from "../ledger/index.ts";
import { checkProofBundle } from "../ledger/index.ts";
import { openCheckpoint } from "../ledger/index.ts";
import { newVerifier } from "../ledger/index.ts";
import { parseTlogProof } from "../ledger/index.ts";
import { assertTimestampCovers } from "../ledger/index.ts";
import { validateBag } from "./bagit.ts";
import { PACKAGE_VERSION, REDACTION_MANIFEST_VERSION, type PackageExhibit, type PackageIndex } from "./package.ts";

export interface PackageVerification {
  ok: boolean;
  problems: string[];
  id?: string;
  exhibits: number;
  events: number;
  checkpoint?: { origin: string; size: number };
  timestamp?: { genTime: string; serial: string };
}

export interface VerifyPackageOptions {
  /**
   * Log keys the caller trusts, obtained apart from the package. Without them the package's own
   * data/log/log.vkey is used, which proves internal consistency but not who signed.
   */
  trustedKeys?: string[];
}

function message(e: unknown): string {
  if (e instanceof DalilError || e instanceof SyntaxError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

export async function verifyPackage(dir: string, opts: VerifyPackageOptions = {}): Promise<PackageVerification> {
  const bag = await validateBag(dir);
  const problems = [...bag.problems];
  const out: PackageVerification = { ok: false, problems, exhibits: 0, events: 0 };
  const file = (rel: string): string => join(dir, ...rel.split("/"));
  const readText = (rel: string): string | null => (existsSync(file(rel)) ? readFileSync(file(rel), "utf8") : null);

  const indexText = readText("data/package.json");
  if (indexText === null) {
    problems.push("data/package.json is missing: this is not a dalil evidence package.");
    return done(out);
  }
  let index: PackageIndex;
  try {
    index = JSON.parse(indexText) as PackageIndex;
    if (index.v !== PACKAGE_VERSION) throw new SyntaxError(`its version is ${JSON.stringify(index.v)}, not ${PACKAGE_VERSION}`);
  } catch (e) {
    problems.push(`data/package.json cannot be read: ${message(e)}.`);
    return done(out);
  }
  out.id = index.id;

  const vkeyText = readText("data/log/log.vkey");
  const keys = opts.trustedKeys?.length ? opts.trustedKeys : vkeyText ? [vkeyText.trim()] : [];
  if (!opts.trustedKeys?.length && vkeyText === null) problems.push("data/log/log.vkey is missing and no trusted key was given.");
  if (vkeyText !== null && opts.trustedKeys?.length && !opts.trustedKeys.includes(vkeyText.trim())) {
    problems.push("data/log/log.vkey is not one of the keys you trust: the package names another log key.");
  }
  const note = readText("data/log/checkpoint");
  if (note === null) problems.push("data/log/checkpoint is missing.");
  else if (keys.length) {
    try {
      const { checkpoint } = openCheckpoint(note, keys.map((k) => newVerifier(k)));
      out.checkpoint = { origin: checkpoint.origin, size: checkpoint.size };
      if (checkpoint.origin !== index.log.origin || checkpoint.size !== index.log.size) {
        problems.push(`data/log/checkpoint is for ${checkpoint.origin} at size ${checkpoint.size}, but data/package.json says ${index.log.origin} at ${index.log.size}.`);
      }
    } catch (e) {
      problems.push(`data/log/checkpoint does not verify: ${message(e)}`);
    }
  }
  if (note !== null && existsSync(file("data/log/checkpoint.tsr"))) {
    try {
      const info = assertTimestampCovers(readFileSync(file("data/log/checkpoint.tsr")), Buffer.from(note, "utf8"));
      out.timestamp = { genTime: info.genTime, serial: info.serial };
    } catch (e) {
      problems.push(`data/log/checkpoint.tsr does not cover data/log/checkpoint: ${message(e)}`);
    }
  }

  // Every event is kept once in data/events/: one that concerns many exhibits (a handover) is not copied per exhibit.
  const eventRel = (seq: number): string => `data/events/${seq}`;
  const checked = new Map<number, CustodyEvent | null>();
  /** One event and its proof, checked once however many exhibits name it: the event, or null. */
  const checkEvent = (seq: number): CustodyEvent | null => {
    if (!checked.has(seq)) checked.set(seq, proveEvent(seq));
    return checked.get(seq)!;
  };
  /** Proves an event file against the package's checkpoint and returns the event, or null. */
  const proveEvent = (seq: number): CustodyEvent | null => {
    const rel = eventRel(seq);
    const leaf = existsSync(file(`${rel}.json`)) ? readFileSync(file(`${rel}.json`)) : null;
    const proofText = readText(`${rel}.tlog-proof`);
    if (leaf === null) problems.push(`${rel}.json is missing.`);
    if (proofText === null) problems.push(`${rel}.tlog-proof is missing.`);
    if (leaf === null || proofText === null) return null;
    out.events++;
    try {
      const p = parseTlogProof(proofText);
      if (p.index !== seq) problems.push(`${rel}.tlog-proof proves entry ${p.index}, not ${seq}.`);
      if (note !== null && p.checkpoint !== note) problems.push(`${rel}.tlog-proof is against another checkpoint than data/log/checkpoint.`);
    } catch (e) {
      problems.push(`${rel}.tlog-proof: ${message(e)}`);
      return null;
    }
    const r = checkProofBundle({ proofText, leafBytes: leaf, verifierKeys: keys, origin: index.log.origin });
    if (!r.ok) problems.push(`${rel}.json is not proved by ${rel}.tlog-proof: ${r.reason}`);
    try {
      return parseLeaf(leaf);
    } catch (e) {
      problems.push(`${rel}.json is not a custody event: ${message(e)}`);
      return null;
    }
  };

  const listed = new Set<string>();
  for (const ex of index.exhibits ?? []) {
    out.exhibits++;
    listed.add(ex.exhibit);
    const got = bag.payload.get(ex.file);
    const want = ex.copy ? ex.copy.sha256 : ex.sha256;
    if (!ex.file.startsWith(`data/${ex.exhibit}/`)) problems.push(`${ex.exhibit}: its file ${ex.file} is outside data/${ex.exhibit}/.`);
    else if (got === undefined) problems.push(`${ex.exhibit}: ${ex.file} is missing or unlisted.`);
    else if (got !== want) problems.push(`${ex.exhibit}: ${ex.file} hashes to ${got}, not the ${ex.copy ? "copy's" : "exhibit's"} SHA-256 ${want}.`);
    if (ex.copy) checkCopy(ex, readText, problems);
    else if (index.clearance && index.clearance !== "original") problems.push(`${ex.exhibit}: the package is of ${index.clearance} copies but this exhibit has no copy: an original may have been put in its place.`);
    if (!ex.events.includes(index.handover)) problems.push(`${ex.exhibit}: its events in data/package.json leave out this package's handover (${index.handover}).`);
    for (const seq of ex.events) {
      const rel = eventRel(seq);
      const e = checkEvent(seq);
      if (e && !e.objects.some((o) => o.sha256 === ex.sha256)) problems.push(`${rel}.json does not concern ${ex.exhibit} (it names no object with SHA-256 ${ex.sha256}).`);
    }
  }
  for (const name of existsSync(file("data")) ? readdirSync(file("data")) : []) {
    if (/^E-\d+(-\d+)?$/.test(name) && !listed.has(name)) problems.push(`data/${name} is an exhibit directory that data/package.json does not list.`);
  }

  const handoverRel = eventRel(index.handover);
  const h = checkEvent(index.handover);
  if (h) {
    if (h.type !== "export" || h.detail.package !== index.id) problems.push(`${handoverRel}.json is not the export event of package ${index.id}.`);
    checkHandoverWords(h, index, handoverRel, readText(`${handoverRel}.openings.json`), problems);
    for (const ex of index.exhibits ?? []) {
      if (!h.objects.some((o) => o.sha256 === ex.sha256)) problems.push(`The handover event does not name ${ex.exhibit} (${ex.sha256}).`);
    }
    const named = h.objects.filter((o) => o.sha256).length;
    if (named !== (index.exhibits ?? []).length) problems.push(`The handover event names ${named} exhibits; the package holds ${(index.exhibits ?? []).length}.`);
    const content = (index.clearance ?? "original") === "original" ? "originals" : index.clearance;
    if (h.detail.content !== content) problems.push(`The handover event says it handed over ${String(h.detail.content)}; data/package.json says ${content}.`);
    const copies = (h.detail.copies ?? {}) as Record<string, string>;
    for (const ex of index.exhibits ?? []) {
      if ((copies[ex.exhibit] ?? null) !== (ex.copy?.sha256 ?? null)) {
        problems.push(`${ex.exhibit}: the handover event records ${copies[ex.exhibit] ? `the copy ${copies[ex.exhibit]}` : "no copy"}, but the package holds ${ex.copy ? `the copy ${ex.copy.sha256}` : "the original"}.`);
      }
    }
    if (index.report && h.detail.report !== index.report.pdfSha256) problems.push(`${index.report.pdf}: the handover event records another report (${String(h.detail.report)}).`);
    if (index.report && bag.payload.get(index.report.pdf) !== index.report.pdfSha256) problems.push(`${index.report.pdf} is missing or is not the report named in data/package.json.`);
    if (index.dossier && !h.objects.some((o) => o.id === index.dossier!.id && o.role === "dossier")) problems.push(`The handover event does not name dossier ${index.dossier.id}.`);
  }

  if (index.dossier) {
    const d = index.dossier;
    const got = bag.payload.get(d.file);
    if (got === undefined) problems.push(`${d.file} (the dossier version) is missing or unlisted.`);
    else if (got !== d.sha256) problems.push(`${d.file} hashes to ${got}, not the frozen version's SHA-256 ${d.sha256}.`);
    if (!d.events.includes(d.freezeEvent)) problems.push(`The dossier's events in data/package.json do not include its freeze event ${d.freezeEvent}.`);
    for (const seq of d.events) {
      const rel = eventRel(seq);
      const e = checkEvent(seq);
      if (e && !e.objects.some((o) => o.id === d.id)) problems.push(`${rel}.json does not concern dossier ${d.id}.`);
      if (e && seq === d.freezeEvent && (e.detail.action !== "dossier.freeze" || e.detail.sha256 !== d.sha256 || e.detail.version !== d.version)) {
        problems.push(`${rel}.json is not the freezing of version ${d.version} with SHA-256 ${d.sha256}.`);
      }
    }
  }
  if (existsSync(file("data/events"))) {
    // Every event file must be one an exhibit or the dossier names: nothing rides along unaccounted for.
    const named = new Set([index.handover, ...(index.exhibits ?? []).flatMap((x) => x.events ?? []), ...(index.dossier?.events ?? [])]);
    for (const n of readdirSync(file("data/events"))) {
      const m = /^(\d+)\.(json|tlog-proof|openings\.json)$/.exec(n);
      if (!m) problems.push(`data/events/${n} is not an event (<n>.json), its proof (<n>.tlog-proof) or its openings (<n>.openings.json).`);
      else if (m[2] === "openings.json" && Number(m[1]) !== index.handover) problems.push(`data/events/${n}: only the handover's openings belong in a package.`);
      else if (!named.has(Number(m[1]))) problems.push(`data/events/${n} is not among the events data/package.json gives any exhibit or the dossier.`);
    }
  }
  return done(out);
}

/**
 * The handover's recipient and purpose: in the clear in a leaf logged before commitments existed, otherwise a
 * commitment the package's openings file must reproduce (openings.ts), with the value data/package.json gives.
 */
function checkHandoverWords(h: CustodyEvent, index: PackageIndex, rel: string, openingsText: string | null, problems: string[]): void {
  let openings: { field: string; salt: string; value: unknown }[] = [];
  if (openingsText !== null) {
    try {
      openings = JSON.parse(openingsText) as typeof openings;
      if (!Array.isArray(openings)) throw new SyntaxError("it is not a list of openings");
    } catch (e) {
      problems.push(`${rel}.openings.json cannot be read: ${message(e)}.`);
      openings = [];
    }
  }
  const byField = new Map(openings.map((o) => [o.field, o]));
  for (const o of openings) {
    if (!isCommitment(getPath(h, o.field))) problems.push(`${rel}.openings.json opens ${String(o.field)}, which is not a commitment in ${rel}.json.`);
  }
  for (const [key, want] of [["recipient", index.recipient], ["purpose", index.purpose]] as const) {
    const field = `detail.${key}`;
    const inLeaf = h.detail[key];
    if (!isCommitment(inLeaf)) {
      if (inLeaf !== want) problems.push(`${rel}.json names another ${key} than data/package.json.`);
      continue;
    }
    const o = byField.get(field);
    if (!o) problems.push(`${rel}.json holds the ${key} as a commitment, and ${rel}.openings.json gives no opening of it.`);
    else if (!opens(h.id, field, inLeaf, o)) problems.push(`${rel}.openings.json: the opening of the ${key} does not reproduce the commitment in ${rel}.json (its value or salt was changed).`);
    else if (o.value !== want) problems.push(`${rel}.json names another ${key} than data/package.json.`);
  }
}

function getPath(e: CustodyEvent, path: string): unknown {
  let v: unknown = e;
  for (const k of String(path).split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** A copy's redaction manifest must tie the copy in the bag to the exhibit's original, as package.json says. */
function checkCopy(ex: PackageExhibit, readText: (rel: string) => string | null, problems: string[]): void {
  const copy = ex.copy!;
  const text = readText(copy.manifest);
  if (text === null) {
    problems.push(`${ex.exhibit}: its redaction manifest ${copy.manifest} is missing.`);
    return;
  }
  let m: { v?: string; exhibit?: string; original?: { sha256?: string }; copy?: { file?: string; sha256?: string }; method?: string; regions?: unknown };
  try {
    m = JSON.parse(text) as typeof m;
  } catch (e) {
    problems.push(`${copy.manifest} cannot be read: ${message(e)}.`);
    return;
  }
  if (m.v !== REDACTION_MANIFEST_VERSION) problems.push(`${copy.manifest} is not a ${REDACTION_MANIFEST_VERSION} manifest.`);
  if (m.original?.sha256 !== ex.sha256) problems.push(`${copy.manifest} ties the copy to the original ${String(m.original?.sha256)}, not the exhibit's ${ex.sha256}.`);
  if (m.copy?.sha256 !== copy.sha256 || m.copy?.file !== ex.file) problems.push(`${copy.manifest} names the copy ${String(m.copy?.file)} ${String(m.copy?.sha256)}, not ${ex.file} ${copy.sha256}.`);
  if (m.method !== copy.method || canonicalJson(m.regions ?? null) !== canonicalJson(copy.regions)) problems.push(`${copy.manifest} describes another redaction than data/package.json.`);
}

function done(out: PackageVerification): PackageVerification {
  out.ok = out.problems.length === 0;
  return out;
}
