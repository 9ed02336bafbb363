/**
 * The blob store's two secrets. The master key (KEK) wraps each blob's data key and can be rotated; the naming
 * key turns a SHA-256 into an object name and never changes (changing it would rename every blob).
 *
 * On disk, in keysDir (0700): master.key, naming.key and, only while a rotation is unfinished,
 * master.previous.<key id>.key — each the base64 of 32 bytes and a newline, mode 0600. From the environment:
 * DALIL_MASTER_KEY, DALIL_NAMING_KEY and, during a rotation, DALIL_MASTER_KEY_PREVIOUS (comma-separated).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { IntegrityError, Invalid } from "../../core/errors.ts";
import { base64KeyText, syncDir, writeKeyFile as writeKey } from "../../core/key-file.ts";
import { KEY_LENGTH, keyIdOf } from "./format.ts";
import type { BlobStore, RewrapReport } from "./store.ts";
import { say } from "../../core/messages.ts";

export interface MasterKey {
  /** First 8 bytes of SHA-256(key), hex: stored in every sidecar to say which key wrapped it. */
  id: string;
  key: Buffer;
}

export interface BlobKeys {
  /** Wraps the data keys of new blobs. */
  master: MasterKey;
  /** Older master keys that may still wrap some sidecars (an unfinished rotation); empty normally. */
  previous: MasterKey[];
  naming: Buffer;
  /** Where the master key lives on disk, so a rotation can persist the new one; null when it came from env. */
  keysDir: string | null;
}

const MASTER = "master.key";
const NAMING = "naming.key";
const PREVIOUS = /^master\.previous\.([0-9a-f]{16})\.key$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;

export function generateKey(): Buffer {
  return randomBytes(KEY_LENGTH);
}

export function masterKey(key: Buffer): MasterKey {
  if (key.length !== KEY_LENGTH) throw new Invalid(say("keys.masterLength", { wanted: KEY_LENGTH, length: key.length }));
  return { id: keyIdOf(key), key: Buffer.from(key) };
}

function parseKey(text: string, where: string): Buffer {
  const t = text.trim();
  if (!BASE64_KEY.test(t)) {
    throw new Invalid(say("keys.notAKey", { where, wanted: KEY_LENGTH }));
  }
  return Buffer.from(t, "base64");
}

function code(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

async function readKeyFile(path: string): Promise<Buffer | null> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    if (code(err) === "ENOENT") return null;
    throw err;
  }
  // Like ssh with private keys: a key others can read is a key to replace, not to use quietly.
  if ((st.mode & 0o077) !== 0) {
    throw new Invalid(
      say("keys.readableByOthers", { path, mode: (st.mode & 0o777).toString(8) }),
    );
  }
  return parseKey(await readFile(path, "utf8"), path);
}

async function writeKeyFile(dir: string, name: string, key: Buffer, mode: "create" | "replace"): Promise<boolean> {
  return writeKey(dir, name, base64KeyText(key), mode);
}


function previousFromEnv(env: NodeJS.ProcessEnv): MasterKey[] {
  const raw = env.DALIL_MASTER_KEY_PREVIOUS;
  if (!raw) return [];
  return raw
    .split(/[,\s]+/)
    .filter((s) => s !== "")
    .map((s) => masterKey(parseKey(s, "DALIL_MASTER_KEY_PREVIOUS")));
}

async function previousFromDir(dir: string): Promise<MasterKey[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (err) {
    if (code(err) === "ENOENT") return [];
    throw err;
  }
  const out: MasterKey[] = [];
  for (const n of names) {
    const m = PREVIOUS.exec(n);
    if (!m) continue;
    const key = await readKeyFile(join(dir, n));
    if (!key) continue;
    const mk = masterKey(key);
    if (mk.id !== m[1]) throw new Invalid(say("keys.idMismatch", { file: join(dir, n), id: mk.id }));
    out.push(mk);
  }
  return out;
}

function uniqueKeys(keys: MasterKey[]): MasterKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => (seen.has(k.id) ? false : (seen.add(k.id), true)));
}

/** A second process may be creating the keys right now: give it a moment before calling the pair incomplete. */
async function waitForPair(dir: string): Promise<[Buffer | null, Buffer | null]> {
  for (let i = 0; ; i++) {
    const pair: [Buffer | null, Buffer | null] = [await readKeyFile(join(dir, MASTER)), await readKeyFile(join(dir, NAMING))];
    if ((pair[0] === null) === (pair[1] === null) || i >= 10) return pair;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Loads the blob keys, or creates both when neither exists anywhere (a new archive). One key without the other
 * is never "fixed" by making a new one: that would make every stored blob unreadable or unfindable.
 */
export async function loadOrCreateBlobKeys(keysDir: string, env: NodeJS.ProcessEnv = process.env): Promise<BlobKeys> {
  const envMaster = env.DALIL_MASTER_KEY ? parseKey(env.DALIL_MASTER_KEY, "DALIL_MASTER_KEY") : null;
  const envNaming = env.DALIL_NAMING_KEY ? parseKey(env.DALIL_NAMING_KEY, "DALIL_NAMING_KEY") : null;
  let [fileMaster, fileNaming] = envMaster && envNaming ? [null, null] : await waitForPair(keysDir);

  if (!envMaster && !envNaming && !fileMaster && !fileNaming) {
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    // Naming first: a crash between the two leaves naming.key alone, which the message below explains.
    await writeKeyFile(keysDir, NAMING, generateKey(), "create");
    await writeKeyFile(keysDir, MASTER, generateKey(), "create");
    [fileMaster, fileNaming] = await waitForPair(keysDir);
  }

  const master = envMaster ?? fileMaster;
  const naming = envNaming ?? fileNaming;
  if (!master || !naming) {
    const missing = !master ? `the master key (${join(keysDir, MASTER)} or DALIL_MASTER_KEY)` : `the naming key (${join(keysDir, NAMING)} or DALIL_NAMING_KEY)`;
    throw new Invalid(
      say("keys.incomplete", { missing }),
    );
  }
  const current = masterKey(master);
  const previous = uniqueKeys([...previousFromEnv(env), ...(envMaster ? [] : await previousFromDir(keysDir))]).filter(
    (k) => k.id !== current.id,
  );
  return { master: current, previous, naming, keysDir: envMaster ? null : keysDir };
}

export interface RotationResult {
  keys: BlobKeys;
  report: RewrapReport;
}

/**
 * Makes newKey the master key and rewraps every sidecar with it; blobs are not rewritten (their data keys do not
 * change). Safe to interrupt and run again, with the same or yet another new key: every key that may still wrap
 * a sidecar is kept (master.previous.<id>.key) until a full pass has found every sidecar on the new key.
 *
 * Run it with no other process writing to the store: one that still holds the old key would wrap new blobs
 * with it after the pass. With keys from the environment, first set DALIL_MASTER_KEY to the new key and
 * DALIL_MASTER_KEY_PREVIOUS to the old, pass the new key here, and drop the old one only after it returns.
 */
export async function rotateMasterKey(store: BlobStore, oldKeys: BlobKeys, newKey: Buffer): Promise<RotationResult> {
  const target = masterKey(newKey);
  const ring = uniqueKeys([target, oldKeys.master, ...oldKeys.previous]);
  const retiring = ring.filter((k) => k.id !== target.id);
  const dir = oldKeys.keysDir;
  if (dir) {
    for (const k of retiring) await writeKeyFile(dir, `master.previous.${k.id}.key`, k.key, "create");
    if (oldKeys.master.id !== target.id) await writeKeyFile(dir, MASTER, target.key, "replace");
  } else if (oldKeys.master.id !== target.id) {
    throw new Invalid(
      say("keys.masterFromEnvironment"),
    );
  }

  const report = await store.rewrapKeys(ring, target);
  if (report.failed.length > 0) {
    const first = report.failed[0];
    throw new IntegrityError(
      say("keys.rewrapFailed", { count: report.failed.length, key: first?.key ?? "", problem: first?.problem ?? "" }),
    );
  }
  if (dir) {
    for (const k of retiring) await unlink(join(dir, `master.previous.${k.id}.key`)).catch(() => {});
    syncDir(dir);
  }
  return { keys: { master: target, previous: [], naming: oldKeys.naming, keysDir: dir }, report };
}
