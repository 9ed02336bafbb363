import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, IntegrityError } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { auditFixity, blobLayout } from "../archive/index.ts";
import { custody, secret } from "../ledger/index.ts";
import { writeDurably } from "./files.ts";

/**
 * Copy audits (`dalil audit copies`): every copy of the blob store the archive's custodians keep (a mirror's
 * folder, a plain folder copy of DATA/blobs) compared with the archive's own store object by object, by the
 * SHA-256 of the bytes at rest. The archive's store is first checked against the log (every original and
 * rendition decrypts and hashes to its name); an object that fails there is repaired from the first copy whose
 * bytes make it pass. Then each copy is named what it lacks (missing), holds otherwise (corrupt) or holds that the
 * archive does not (extra, kept: a copy may be ahead); missing and corrupt objects are written back from the
 * archive's store and checked again. The audit and every repair are custody events. Copies are configured in
 * DATA/copies.json: [{ "name": "museum", "kind": "mirror" | "folder", "path": "/srv/…", "everyHours": 24 }].
 * Each copy is also audited on its own by a periodic job, every `everyHours` hours (copy-jobs.ts).
 */
export interface CopySpec {
  name: string;
  kind: "mirror" | "folder";
  path: string;
  /** How often the copy's own audit job runs (hours; DEFAULT_EVERY_HOURS when copies.json does not say). */
  everyHours?: number;
}

export const DEFAULT_EVERY_HOURS = 24;
/** At most a year between two audits of one copy; at least six minutes. */
const MAX_EVERY_HOURS = 24 * 366;
const MIN_EVERY_HOURS = 0.1;

export interface CopyFinding {
  copy: string;
  key: string;
  problem: "missing" | "corrupt" | "extra";
  repaired: boolean;
}

export interface CopyAudit {
  copies: { name: string; kind: string; objects: number; missing: number; corrupt: number; extra: number; repaired: number }[];
  archive: { checked: number; failed: number; repaired: number };
  findings: CopyFinding[];
  unrepaired: string[];
}

export function loadCopies(dataDir: string): CopySpec[] {
  const file = join(dataDir, "copies.json");
  if (!existsSync(file)) throw new Invalid(say("copies.none", { file }), "copies");
  let list: unknown;
  try {
    list = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Invalid(say("copies.notJson", { file, problem: (err as Error).message }), "copies");
  }
  if (!Array.isArray(list) || list.length === 0) throw new Invalid(say("copies.empty", { file }), "copies");
  return list.map((c: Partial<CopySpec>, i) => {
    if (!c || typeof c.name !== "string" || (c.kind !== "mirror" && c.kind !== "folder") || typeof c.path !== "string") {
      throw new Invalid(say("copies.entry", { file, copy: i + 1 }), "copies");
    }
    const every = c.everyHours ?? DEFAULT_EVERY_HOURS;
    if (typeof every !== "number" || !Number.isFinite(every) || every < MIN_EVERY_HOURS || every > MAX_EVERY_HOURS) {
      throw new Invalid(say("mirror.copySchedule", { file, copy: i + 1, min: MIN_EVERY_HOURS, max: MAX_EVERY_HOURS }), "copies");
    }
    return { name: c.name, kind: c.kind, path: resolve(dataDir, c.path), everyHours: every };
  });
}

/** The folder that holds a copy's objects, checked before anything is compared: an audit that cannot read a copy fails. */
function rootOf(c: CopySpec): string {
  const root = c.kind === "mirror" ? join(c.path, "blobs") : c.path;
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Invalid(say("copies.unreadable", { name: c.name, folder: root }), "copies");
  return root;
}

function digest(b: Buffer): string {
  return createHash("sha256").update(b).digest("hex");
}

function walk(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) visit(full);
      else if (e.isFile()) {
        const key = relative(root, full).split(sep).join("/");
        if (key === blobLayout.marker || blobLayout.parse(key)) out.set(key, digest(readFileSync(full)));
      }
    }
  };
  visit(root);
  return out;
}

async function readAll(s: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function auditCopies(ctx: Ctx, actor: Actor, input: { copies: CopySpec[] }): Promise<CopyAudit> {
  ctx.policy.require(actor, "archive.verify");
  const roots = input.copies.map((c) => ({ spec: c, root: rootOf(c) }));
  const held = roots.map((r) => walk(r.root));
  const repairs: { copy: string; key: string }[] = [];
  const unrepaired: string[] = [];

  // 1. the archive's own store against the log; a failing object repaired from a copy whose bytes pass
  const fixity = await auditFixity(ctx, actor, { record: false });
  let primaryRepaired = 0;
  const primaryFindings: CopyFinding[] = [];
  for (const f of fixity.findings) {
    const blobKey = blobLayout.blob(ctx.blobs.nameOf(f.item));
    let fixed = false;
    for (let i = 0; i < roots.length && !fixed; i++) {
      const keys = [...held[i]!.keys()].filter((k) => k === blobKey || k.startsWith(`${blobKey}.`));
      if (!keys.includes(blobKey)) continue;
      for (const k of keys) await ctx.blobs.writeObject(k, readFileSync(join(roots[i]!.root, ...k.split("/"))));
      if ((await ctx.blobs.verify(f.item)).ok) {
        fixed = true;
        primaryRepaired++;
        repairs.push({ copy: "archive", key: blobKey });
      }
    }
    if (!fixed) unrepaired.push(`${f.item}: ${f.problem} (no copy holds bytes that pass)`);
    primaryFindings.push({ copy: "archive", key: blobKey, problem: /missing/.test(f.problem) ? "missing" : "corrupt", repaired: fixed });
  }

  // 2. each copy against the archive's store, object by object
  const primary = new Map<string, string>();
  for await (const o of ctx.blobs.listObjects()) primary.set(o.key, digest(await readAll((await ctx.blobs.readObject(o.key))!)));
  const findings: CopyFinding[] = [...primaryFindings];
  const perCopy: CopyAudit["copies"] = [];
  for (let i = 0; i < roots.length; i++) {
    const { spec, root } = roots[i]!;
    const have = held[i]!;
    const row = { name: spec.name, kind: spec.kind, objects: have.size, missing: 0, corrupt: 0, extra: 0, repaired: 0 };
    const manifestFile = spec.kind === "mirror" ? join(spec.path, "blobs.json") : null;
    const manifest = manifestFile && existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, { size: number; sha256: string }>) : null;
    for (const [key, sha] of primary) {
      const theirs = have.get(key);
      if (theirs === sha) continue;
      const problem = theirs === undefined ? "missing" : "corrupt";
      row[problem]++;
      const bytes = await readAll((await ctx.blobs.readObject(key))!);
      writeDurably(join(root, ...key.split("/")), bytes);
      const again = digest(readFileSync(join(root, ...key.split("/"))));
      const repaired = again === sha;
      if (repaired) {
        row.repaired++;
        repairs.push({ copy: spec.name, key });
        if (manifest) manifest[key] = { size: bytes.length, sha256: sha };
      } else unrepaired.push(`${spec.name}: ${key} still differs after it was written back`);
      findings.push({ copy: spec.name, key, problem, repaired });
    }
    for (const key of have.keys()) {
      if (primary.has(key)) continue;
      row.extra++;
      findings.push({ copy: spec.name, key, problem: "extra", repaired: false });
    }
    if (manifest && manifestFile && row.repaired) writeDurably(manifestFile, JSON.stringify(manifest));
    perCopy.push(row);
  }

  // 3. the audit and each repair, as custody events
  await ctx.db.transaction(async (tx) => {
    for (const r of repairs) {
      await ctx.log.append(tx, custody("replication", actor, ctx.clock.now(), [], { act: "repaired", copy: secret(r.copy), object: r.key.split("/").pop()!.slice(0, 64) }));
    }
    await ctx.log.append(
      tx,
      custody(
        "fixity check",
        actor,
        ctx.clock.now(),
        [],
        {
          audit: "copies",
          copies: roots.length,
          checked: primary.size,
          missing: perCopy.reduce((n, c) => n + c.missing, 0),
          corrupt: perCopy.reduce((n, c) => n + c.corrupt, 0) + fixity.findings.length,
          extra: perCopy.reduce((n, c) => n + c.extra, 0),
          repaired: repairs.length,
        },
        unrepaired.length ? "failure" : "success",
      ),
    );
  });
  if (unrepaired.length) {
    throw new IntegrityError(say("copies.unrepaired", { findings: unrepaired.join("\n") }));
  }
  return { copies: perCopy, archive: { checked: fixity.checked, failed: fixity.findings.length, repaired: primaryRepaired }, findings, unrepaired };
}
