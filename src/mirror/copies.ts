import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, IntegrityError } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { auditFixity, blobLayout } from "../archive/index.ts";
import { custody, secret } from "../ledger/index.ts";
import { openCopy, type CopyPlace, type CopySpec } from "./copy-places.ts";
import { sha256Hex } from "../access/index.ts";

export type { CopySpec };

/**
 * Copy audits (`dalil audit copies`): every copy of the blob store the archive's custodians keep (a mirror's
 * folder, a plain folder copy of DATA/blobs, a bucket on an S3-compatible service) compared with the archive's own
 * store object by object, by the SHA-256 of the bytes at rest. The archive's store is first checked against the
 * log (every original and rendition decrypts and hashes to its name); an object that fails there is repaired from
 * the first copy whose bytes make it pass. Then each copy is named what it lacks (missing), holds otherwise
 * (corrupt) or holds that the archive does not (extra, kept: a copy may be ahead); missing and corrupt objects are
 * written back from the archive's store and checked again. The audit and every repair are custody events. A copy
 * that cannot be read (a folder unmounted, a bucket out of reach) stops the audit with a sentence.
 * Copies are configured in DATA/copies.json:
 *   [{ "name": "museum", "kind": "mirror" | "folder", "path": "/srv/…", "everyHours": 24 },
 *    { "name": "offsite", "kind": "s3", "url": "s3://bucket/prefix?endpoint=https://…&region=…", "everyHours": 24 }]
 * An S3 URL is written as DALIL_BLOBS takes it (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY).
 * Each copy is also audited on its own by a periodic job, every `everyHours` hours (copy-jobs.ts).
 */
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

type Entry = { name?: unknown; kind?: unknown; path?: unknown; url?: unknown; everyHours?: unknown };

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
  return list.map((c: Entry | null, i): CopySpec => {
    const folder = c?.kind === "mirror" || c?.kind === "folder";
    if (!c || typeof c.name !== "string" || !(folder ? typeof c.path === "string" : c.kind === "s3" && typeof c.url === "string" && c.url.startsWith("s3://"))) {
      throw new Invalid(say("copies.entry", { file, copy: i + 1 }), "copies");
    }
    const every = c.everyHours ?? DEFAULT_EVERY_HOURS;
    if (typeof every !== "number" || !Number.isFinite(every) || every < MIN_EVERY_HOURS || every > MAX_EVERY_HOURS) {
      throw new Invalid(say("mirror.copySchedule", { file, copy: i + 1, min: MIN_EVERY_HOURS, max: MAX_EVERY_HOURS }), "copies");
    }
    if (c.kind === "s3") return { name: c.name, kind: "s3", url: c.url as string, everyHours: every };
    return { name: c.name, kind: c.kind as "mirror" | "folder", path: resolve(dataDir, c.path as string), everyHours: every };
  });
}

async function readAll(s: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Opens every copy, or none: the first that cannot be read stops the audit (those opened are closed). */
async function openAll(copies: CopySpec[]): Promise<CopyPlace[]> {
  const places: CopyPlace[] = [];
  try {
    for (const c of copies) places.push(await openCopy(c));
    return places;
  } catch (err) {
    await Promise.all(places.map((p) => p.close()));
    throw err;
  }
}

export async function auditCopies(ctx: Ctx, actor: Actor, input: { copies: CopySpec[] }): Promise<CopyAudit> {
  ctx.policy.require(actor, "archive.verify");
  const places = await openAll(input.copies);
  try {
    return await audit(ctx, actor, input.copies, places);
  } finally {
    await Promise.all(places.map((p) => p.close()));
  }
}

async function audit(ctx: Ctx, actor: Actor, specs: CopySpec[], places: CopyPlace[]): Promise<CopyAudit> {
  const held: Map<string, string>[] = [];
  for (const p of places) held.push(await p.held());
  const repairs: { copy: string; key: string }[] = [];
  const unrepaired: string[] = [];

  // 1. the archive's own store against the log; a failing object repaired from a copy whose bytes pass
  const fixity = await auditFixity(ctx, actor, { record: false });
  let primaryRepaired = 0;
  const primaryFindings: CopyFinding[] = [];
  for (const f of fixity.findings) {
    const blobKey = blobLayout.blob(ctx.blobs.nameOf(f.item));
    let fixed = false;
    for (let i = 0; i < places.length && !fixed; i++) {
      const keys = [...held[i]!.keys()].filter((k) => k === blobKey || k.startsWith(`${blobKey}.`));
      if (!keys.includes(blobKey)) continue;
      for (const k of keys) {
        const bytes = await places[i]!.read(k);
        if (bytes) await ctx.blobs.writeObject(k, bytes);
      }
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
  for await (const o of ctx.blobs.listObjects()) primary.set(o.key, sha256Hex(await readAll((await ctx.blobs.readObject(o.key))!)));
  const findings: CopyFinding[] = [...primaryFindings];
  const perCopy: CopyAudit["copies"] = [];
  for (let i = 0; i < places.length; i++) {
    const spec = specs[i]!;
    const place = places[i]!;
    const have = held[i]!;
    const row = { name: spec.name, kind: spec.kind, objects: have.size, missing: 0, corrupt: 0, extra: 0, repaired: 0 };
    for (const [key, sha] of primary) {
      const theirs = have.get(key);
      if (theirs === sha) continue;
      const problem = theirs === undefined ? "missing" : "corrupt";
      row[problem]++;
      await place.write(key, await readAll((await ctx.blobs.readObject(key))!));
      const again = await place.read(key);
      const repaired = again !== null && sha256Hex(again) === sha;
      if (repaired) {
        row.repaired++;
        repairs.push({ copy: spec.name, key });
      } else unrepaired.push(`${spec.name}: ${key} still differs after it was written back`);
      findings.push({ copy: spec.name, key, problem, repaired });
    }
    for (const key of have.keys()) {
      if (primary.has(key)) continue;
      row.extra++;
      findings.push({ copy: spec.name, key, problem: "extra", repaired: false });
    }
    await place.finish();
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
          copies: places.length,
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
