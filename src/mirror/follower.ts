import { createHash } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, ftruncateSync, writeSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { IntegrityError, Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import {
  MerkleAppender,
  TILE_WIDTH,
  decodeEntryBundle,
  generateCosigner,
  leafHash,
  newVerifier,
  openCheckpoint,
  parseConsistencyProof,
  parseCosignerKey,
  storedHashCount,
  storedHashIndex,
  tilePath,
  tilesBetween,
  verifyConsistency,
  type Checkpoint,
  type Cosigner,
  type TileCoord,
} from "../ledger/index.ts";
import { DurableBatch, writeDurably } from "../core/durable-files.ts";

/**
 * A mirror: another custodian's folder that follows an archive (tlog-mirror, draft). It fetches the signed
 * checkpoint, the hash tiles and, with its grant's token, the entry bundles, the sealed openings and every
 * object of the blob store as ciphertext. It recomputes the tree from the entries it holds: the new root must be
 * the signed one (so the new checkpoint is consistent with everything held before: the old tree is its prefix),
 * every hash tile must hold exactly the recomputed hashes, and an entry already held must come back unchanged.
 * Anything else stops the mirror with an ALARM file and a fork-evidence file holding both signed checkpoints.
 * Only after the copy is durable (every file synced and renamed into place, then state.json) does the mirror
 * cosign the checkpoint with its own key (tlog-cosignature), so its signature says "I hold this".
 *
 *   DIR/mirror.json         the archive's URL, origin and log key (vkey); the mirror's cosigner name and vkey
 *   DIR/keys/               token (the grant), mirror.key (cosigner key), both 0600
 *   DIR/state.json          size, root and signed checkpoint held; written last
 *   DIR/hashes.bin          the tree's stored hashes (tlog indexing), 32 bytes each, trimmed to state on resume
 *   DIR/log/…               tile/<L>/…, tile/entries/…, openings/tile/entries/… (sealed), checkpoints/<size>,
 *                           checkpoint (latest, with the mirror's cosignature)
 *   DIR/blobs/…             the blob store's objects exactly as at rest; DIR/blobs.json their SHA-256 and size
 *   DIR/ALARM, DIR/evidence/fork-….txt   on an inconsistency
 */
export interface MirrorConfig {
  url: string;
  origin: string;
  logVkey: string;
  name: string;
  vkey: string;
}

export interface MirrorState {
  size: number;
  root: string; // base64
  checkpoint: string; // the signed note as the archive published it
  followedAt: string;
  objects: number;
}

export interface FollowReport {
  from: number;
  size: number;
  entriesFetched: number;
  objectsFetched: number;
  objectsHeld: number;
  bytesFetched: number;
  cosignature: string | null;
  alarm: string | null;
}

type Fetch = (path: string, opts?: { auth?: boolean }) => Promise<Buffer>;

const OBJECT_CONCURRENCY = 8;
/** Objects made durable together (one pair of syncfs): at most this many, or this many bytes. */
const OBJECT_SLICE = 512;
const SLICE_BYTES = 128 * 1024 * 1024;
/** Tiles requested ahead of the one being checked: the archive answers while the mirror hashes. */
const FETCH_AHEAD = 8;

export class ForkDetected extends IntegrityError {
  constructor(
    message: string,
    readonly evidence: string,
  ) {
    super(message);
  }
}

export function mirrorPaths(dir: string) {
  return {
    config: join(dir, "mirror.json"),
    token: join(dir, "keys", "token"),
    key: join(dir, "keys", "mirror.key"),
    state: join(dir, "state.json"),
    hashes: join(dir, "hashes.bin"),
    log: join(dir, "log"),
    blobs: join(dir, "blobs"),
    manifest: join(dir, "blobs.json"),
    alarm: join(dir, "ALARM"),
    evidence: join(dir, "evidence"),
  };
}

/** `dalil mirror init URL --token TOKEN`: the folder, its cosigner key, and the archive's log key (trusted on first use unless given). */
export async function initMirror(dir: string, input: { url: string; token: string; name?: string; logVkey?: string }, fetchImpl: typeof fetch = fetch): Promise<MirrorConfig> {
  const p = mirrorPaths(dir);
  if (existsSync(p.config)) throw new Invalid(say("mirror.alreadyHere", { folder: dir }), "data");
  const url = input.url.replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Invalid(say("mirror.badUrl", { url: input.url.slice(0, 200) }), "url");
  if (!/^dalilm_[A-Za-z0-9_-]{20,}$/.test(input.token)) throw new Invalid(say("mirror.badToken"), "token");
  const fetchOne = httpFetcher(url, input.token, fetchImpl);
  const logVkey = (input.logVkey ?? (await fetchOne("/log/key")).toString("utf8")).trim();
  const verifier = newVerifier(logVkey);
  // the token must work before anything is written
  await fetchOne("/mirror/objects", { auth: true });
  const name = input.name ?? `dalil.mirror/${createHash("sha256").update(`${url}\n${Date.now()}\n${Math.random()}`).digest("hex").slice(0, 12)}`;
  const { signerKey, vkey } = generateCosigner(name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeDurably(p.token, `${input.token}\n`);
  writeDurably(p.key, `${signerKey}\n`);
  const config: MirrorConfig = { url, origin: verifier.name, logVkey, name, vkey };
  writeDurably(p.config, `${JSON.stringify(config, null, 2)}\n`);
  return config;
}

export function loadMirror(dir: string): { config: MirrorConfig; token: string; cosigner: Cosigner; state: MirrorState | null } {
  const p = mirrorPaths(dir);
  if (!existsSync(p.config)) throw new Invalid(say("mirror.noneHere", { folder: dir }), "data");
  const config = JSON.parse(readFileSync(p.config, "utf8")) as MirrorConfig;
  const state = existsSync(p.state) ? (JSON.parse(readFileSync(p.state, "utf8")) as MirrorState) : null;
  return { config, token: readFileSync(p.token, "utf8").trim(), cosigner: parseCosignerKey(readFileSync(p.key, "utf8")), state };
}

function httpFetcher(url: string, token: string, fetchImpl: typeof fetch = fetch): Fetch {
  return async (path, opts = {}) => {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetchImpl(`${url}${path}`, { headers: opts.auth ? { authorization: `Bearer ${token}` } : {} });
      } catch (err) {
        if (attempt < 3) {
          await sleep(500 * (attempt + 1));
          continue;
        }
        throw new Invalid(say("mirror.unreachable", { url, why: (err as Error).message }));
      }
      if (res.status === 429 && attempt < 50) {
        await res.arrayBuffer();
        await sleep(Math.min(5000, 1000 * Number(res.headers.get("retry-after") ?? "0.2")));
        continue;
      }
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status === 401 || res.status === 403) throw new Invalid(say("mirror.tokenRefused", { status: res.status, path }), "token");
      if (!res.ok) throw new Invalid(say("mirror.answered", { status: res.status, path, said: body.toString("utf8").slice(0, 200) }));
      return body;
    }
  };
}

/**
 * fn over items, results in the items' order, with up to `ahead` calls in flight. A call that fails is
 * thrown where its result is due; calls still in flight when the caller stops are left to settle unobserved.
 */
async function* inOrder<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, ahead: number): AsyncGenerator<R> {
  const pending: Promise<R>[] = [];
  let next = 0;
  const fill = (): void => {
    while (next < items.length && pending.length < ahead) {
      const p = fn(items[next++]!);
      p.catch(() => undefined); // observed when its turn comes
      pending.push(p);
    }
  };
  fill();
  while (pending.length) {
    const r = await pending.shift()!;
    fill();
    yield r;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}

/** The note's body (origin, size, root and extension lines), as cosignatures sign it. */
function noteBody(note: string): string {
  return note.slice(0, note.indexOf("\n\n") + 1);
}

/** The stored hashes file, opened for reading and appending. */
class HashFile {
  private readonly fd: number;
  constructor(path: string, count: number) {
    this.fd = openSync(path, existsSync(path) ? "r+" : "w+", 0o600);
    const have = statSync(path).size;
    if (have < count * 32) {
      closeSync(this.fd);
      throw new IntegrityError(say("mirror.hashesShort", { path, have: have / 32, written: count }));
    }
    // hashes appended by a follow that was interrupted before its state was written
    if (have > count * 32) ftruncateSync(this.fd, count * 32);
  }

  read(indexes: number[]): Promise<Buffer[]> {
    return Promise.resolve(
      indexes.map((i) => {
        const b = Buffer.alloc(32);
        if (readSync(this.fd, b, 0, 32, i * 32) !== 32) throw new IntegrityError(`hashes.bin has no stored hash ${i}.`);
        return b;
      }),
    );
  }

  append(at: number, hashes: Buffer[]): void {
    const b = Buffer.concat(hashes);
    for (let off = 0; off < b.length; ) off += writeSync(this.fd, b, off, b.length - off, at * 32 + off);
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

function safeJoin(root: string, rel: string): string {
  const p = resolve(root, rel);
  if (!p.startsWith(resolve(root) + sep)) throw new IntegrityError(`The archive named an object outside the copy (${JSON.stringify(rel.slice(0, 80))}).`);
  return p;
}

/**
 * One follow: catch up with the archive's latest checkpoint, verify, store durably, cosign. Throws ForkDetected
 * (after writing ALARM and the evidence file) on any inconsistency; refuses to run while an ALARM stands.
 */
export async function followOnce(dir: string, opts: { fetchImpl?: typeof fetch; now?: () => Date } = {}): Promise<FollowReport> {
  const now = opts.now ?? (() => new Date());
  const p = mirrorPaths(dir);
  const { config, token, cosigner, state } = loadMirror(dir);
  if (existsSync(p.alarm)) {
    throw new IntegrityError(say("mirror.stopped", { alarm: readFileSync(p.alarm, "utf8").trim(), path: p.alarm }));
  }
  const get = httpFetcher(config.url, token, opts.fetchImpl);
  const verifier = newVerifier(config.logVkey);
  const note = (await get("/log/checkpoint")).toString("utf8");
  let cp: Checkpoint;
  try {
    cp = openCheckpoint(note, [verifier]).checkpoint;
  } catch (err) {
    throw new IntegrityError(say("mirror.checkpointKey", { why: (err as Error).message }));
  }
  const held = { size: state?.size ?? 0, root: state ? Buffer.from(state.root, "base64") : null, note: state?.checkpoint ?? null };
  const report: FollowReport = { from: held.size, size: held.size, entriesFetched: 0, objectsFetched: 0, objectsHeld: 0, bytesFetched: 0, cosignature: null, alarm: null };

  const fork = async (problem: string): Promise<never> => {
    let proofLine = "";
    if (held.size > 0 && cp.size > held.size) {
      try {
        const text = (await get(`/log/consistency?from=${held.size}&to=${cp.size}`)).toString("utf8");
        const proof = parseConsistencyProof(text);
        const ok = held.root ? verifyConsistency(held.size, cp.size, proof.proof, held.root, cp.rootHash) : false;
        proofLine = `consistency proof the archive served (from ${held.size} to ${cp.size}) ${ok ? "verifies" : "does NOT verify"}:\n${text}`;
      } catch (err) {
        proofLine = `the archive served no consistency proof from ${held.size} to ${cp.size}: ${(err as Error).message}\n`;
      }
    }
    const at = now().toISOString();
    const file = join(p.evidence, `fork-${held.size}-${cp.size}-${at.replace(/[:.]/g, "-")}.txt`);
    const text =
      `dalil mirror: fork evidence\norigin: ${config.origin}\nlog key: ${config.logVkey}\narchive: ${config.url}\ndetected: ${at}\nproblem: ${problem}\n\n` +
      `checkpoint this mirror held (size ${held.size}), as the archive signed it:\n${held.note ?? "(none)\n"}\n` +
      `checkpoint the archive now serves (size ${cp.size}), as the archive signed it:\n${note}\n${proofLine}`;
    writeDurably(file, text);
    writeDurably(p.alarm, `${at}: ${problem} Evidence: ${file}\n`);
    throw new ForkDetected(`ALARM: ${problem} The mirror has stopped; both signed checkpoints are in ${file}.`, file);
  };

  if (cp.origin !== config.origin) await fork(`the archive's checkpoint names origin ${cp.origin}, not ${config.origin}.`);
  if (cp.size < held.size) await fork(`the archive serves a checkpoint of ${cp.size} events, fewer than the ${held.size} it signed before (a rollback).`);
  if (cp.size === held.size && held.root && !cp.rootHash.equals(held.root)) {
    await fork(`the archive signed two different roots for the same ${cp.size} events (a split view).`);
  }

  const hashes = new HashFile(p.hashes, storedHashCount(held.size));
  try {
    if (cp.size > held.size) {
      const appender = await MerkleAppender.open(held.size, (ix) => hashes.read(ix));
      const firstStored = appender.nextStoredIndex;
      const newHashes: Buffer[] = [];
      const stored = async (i: number): Promise<Buffer> => (i >= firstStored ? newHashes[i - firstStored]! : (await hashes.read([i]))[0]!);
      const writes: { path: string; bytes: Buffer }[] = [];
      const tiles = tilesBetween(held.size, cp.size);
      const entryTiles = tiles.filter((x): x is TileCoord & { kind: "entries" } => x.kind === "entries");
      const fetchEntries = (t: TileCoord): Promise<[Buffer, Buffer]> =>
        Promise.all([get(`/mirror/${tilePath(t)}`, { auth: true }), get(`/mirror/openings/${tilePath(t)}`, { auth: true })]);
      let at = 0;
      for await (const [bundle, openings] of inOrder(entryTiles, fetchEntries, FETCH_AHEAD)) {
        const t = entryTiles[at++]!;
        const path = tilePath(t);
        const leaves = decodeEntryBundle(bundle);
        if (leaves.length !== t.width) await fork(`the entry bundle ${path} holds ${leaves.length} entries, not ${t.width}.`);
        const first = t.index * TILE_WIDTH;
        for (let i = 0; i < leaves.length; i++) {
          const seq = first + i;
          if (seq < held.size) {
            if (!leafHash(leaves[i]!).equals(await stored(storedHashIndex(0, seq)))) {
              await fork(`entry ${seq}, which this mirror already held, came back with other bytes (a rewritten older entry).`);
            }
            continue;
          }
          const { hashes: h } = appender.appendLeaves([leaves[i]!]);
          newHashes.push(...h);
        }
        report.entriesFetched += leaves.length;
        writes.push({ path: join("log", path), bytes: bundle });
        writes.push({ path: join("log", "openings", path), bytes: openings });
      }
      if (!appender.root().equals(cp.rootHash)) {
        await fork(`the entries the archive served, after the ${held.size} this mirror held, do not hash to the root it signed for ${cp.size} (an older entry was rewritten, or the log forked).`);
      }
      const hashTiles = tiles.filter((x): x is TileCoord & { kind: "hash" } => x.kind === "hash");
      at = 0;
      for await (const tile of inOrder(hashTiles, (t) => get(`/log/${tilePath(t)}`), FETCH_AHEAD)) {
        const t = hashTiles[at++]!;
        const path = tilePath(t);
        const want: Buffer[] = [];
        for (let i = 0; i < t.width; i++) want.push(await stored(storedHashIndex(8 * t.level, t.index * TILE_WIDTH + i)));
        if (!tile.equals(Buffer.concat(want))) await fork(`the public hash tile ${path} does not hold the hashes of the entries under the signed root of ${cp.size}.`);
        writes.push({ path: join("log", path), bytes: tile });
      }
      const batch = new DurableBatch(dir);
      for (const w of writes) batch.stage(join(dir, w.path), w.bytes);
      batch.stage(join(p.log, "checkpoints", String(cp.size)), note);
      batch.commit();
      hashes.append(firstStored, newHashes);
    }
  } finally {
    hashes.close();
  }

  // the encrypted blobs: every object the archive's store holds, byte for byte, kept whatever it later says
  const manifest = existsSync(p.manifest) ? (JSON.parse(readFileSync(p.manifest, "utf8")) as Record<string, { size: number; sha256: string }>) : {};
  const listing = (await get("/mirror/objects", { auth: true }))
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const at = l.indexOf(" ");
      return { size: Number(l.slice(0, at)), key: l.slice(at + 1) };
    });
  const wanted = listing.filter((o) => manifest[o.key]?.size !== o.size);
  // in slices: a follow killed mid-way keeps every slice it committed (and its manifest) and resumes after it
  for (const slice of slices(wanted)) {
    const objects = new DurableBatch(dir);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < slice.length) {
        const o = slice[next++]!;
        const target = safeJoin(p.blobs, o.key);
        const bytes = await get(`/mirror/object/${o.key}`, { auth: true });
        if (bytes.length !== o.size) throw new IntegrityError(say("mirror.objectSize", { key: o.key, bytes: bytes.length, size: o.size }));
        objects.stage(target, bytes, 0o600);
        manifest[o.key] = { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
        report.objectsFetched++;
        report.bytesFetched += bytes.length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(OBJECT_CONCURRENCY, slice.length) }, worker));
    objects.commit();
    writeDurably(p.manifest, JSON.stringify(manifest));
  }
  report.objectsHeld = Object.keys(manifest).length;

  // the copy is durable: say so, then sign it
  const next_: MirrorState = { size: cp.size, root: cp.rootHash.toString("base64"), checkpoint: note, followedAt: now().toISOString(), objects: report.objectsHeld };
  writeDurably(p.state, `${JSON.stringify(next_, null, 2)}\n`);
  const line = cosigner.cosign(noteBody(note), Math.floor(now().getTime() / 1000));
  writeDurably(join(p.log, "checkpoint"), `${note}${line}`);
  writeDurably(join(p.log, "cosignatures", String(cp.size)), line);
  report.size = cp.size;
  report.cosignature = line.trim();
  cleanTemporaries(dir);
  return report;
}

/** The objects in runs of at most OBJECT_SLICE objects and SLICE_BYTES bytes (one object alone may be larger). */
function slices<O extends { size: number }>(objects: readonly O[]): O[][] {
  const out: O[][] = [];
  let run: O[] = [];
  let bytes = 0;
  for (const o of objects) {
    if (run.length && (run.length >= OBJECT_SLICE || bytes + o.size > SLICE_BYTES)) {
      out.push(run);
      run = [];
      bytes = 0;
    }
    run.push(o);
    bytes += o.size;
  }
  if (run.length) out.push(run);
  return out;
}

/** Files written aside by a follow that was killed before renaming them. */
function cleanTemporaries(dir: string): void {
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/^\.[0-9a-f]{12}\.tmp$/.test(e.name)) rmSync(full, { force: true });
    }
  };
  walk(dir);
}
