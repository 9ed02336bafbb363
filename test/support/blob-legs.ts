import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { Backend } from "../../src/archive/blobs/backend.ts";
import { openFsBackend } from "../../src/archive/blobs/fs-backend.ts";
import { generateKey, masterKey } from "../../src/archive/blobs/keys.ts";
import type { BlobKeys } from "../../src/archive/blobs/keys.ts";
import { openS3Backend } from "../../src/archive/blobs/s3-backend.ts";
import { startS3rver } from "./s3rver.ts";
import type { S3rverHandle } from "./s3rver.ts";

/** One storage back-end the blob store suite runs on: locations are fresh per call and raw access is for tampering. */
export interface Leg {
  name: "filesystem" | "s3";
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A fresh, empty store location (directory or s3:// URL with its own prefix). */
  location(): string;
  env: NodeJS.ProcessEnv;
  /** The back-end under a location, bypassing encryption. */
  raw(location: string): Promise<Backend>;
}

let counter = 0;

export function fsLeg(): Leg {
  let base = "";
  return {
    name: "filesystem",
    env: {},
    async start() {
      base = mkdtempSync(join(tmpdir(), "dalil-blobs-"));
    },
    async stop() {
      rmSync(base, { recursive: true, force: true });
    },
    location: () => join(base, `store-${++counter}`),
    raw: (location) => openFsBackend(location),
  };
}

export function s3Leg(): Leg {
  let s3: S3rverHandle | null = null;
  const leg: Leg = {
    name: "s3",
    env: {},
    async start() {
      s3 = await startS3rver();
      leg.env = { ...s3.env };
    },
    async stop() {
      await s3?.stop();
    },
    location() {
      if (!s3) throw new Error("s3 leg not started");
      return s3.urlFor(`store-${++counter}`);
    },
    raw: (location) => openS3Backend(location, leg.env),
  };
  return leg;
}

export function testKeys(): BlobKeys {
  return { master: masterKey(generateKey()), previous: [], naming: generateKey(), keysDir: null };
}

export async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

export async function keysUnder(b: Backend, prefix = "objects/"): Promise<string[]> {
  const out: string[] = [];
  for await (const k of b.list(prefix)) out.push(k);
  return out;
}

export async function tempsOf(b: Backend): Promise<string[]> {
  const out: string[] = [];
  for await (const t of b.listTemp()) out.push(t.id);
  return out;
}

/** A deterministic byte stream of `total` bytes in pieces of `piece`, cheap to generate at any size. */
export function patternStream(total: number, piece = 1024 * 1024, seed = 1): Readable {
  let sent = 0;
  let n = seed;
  const block = Buffer.alloc(piece);
  for (let i = 0; i + 4 <= piece; i += 4) block.writeUInt32LE((Math.imul(i + 1, 2654435761) ^ seed) >>> 0, i);
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const len = Math.min(piece, total - sent);
      const out = Buffer.from(block.subarray(0, len));
      if (len >= 4) out.writeUInt32LE(n++ >>> 0, 0);
      sent += len;
      this.push(out);
    },
  });
}
