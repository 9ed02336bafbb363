import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { blobLayout, openS3Objects } from "../archive/index.ts";
import { writeDurably } from "../core/durable-files.ts";
import { sha256Hex } from "../access/index.ts";

/**
 * Where one copy of the blob store lives, as the copy audit reads and writes it: a folder on this machine (a
 * mirror's blobs/ or a plain copy of DATA/blobs) or an S3 location. Keys are the store's relative paths
 * (blobLayout); only the store's objects count (a mirror's own files and an S3 store's tmp/ are not objects).
 */
export interface CopyPlace {
  /** Every object the copy holds, with the SHA-256 (hex) of its bytes at rest. */
  held(): Promise<Map<string, string>>;
  /** The object's bytes, or null when the copy does not hold it. */
  read(key: string): Promise<Buffer | null>;
  /** Writes the object in place (whole or not at all), replacing what the copy held. */
  write(key: string, bytes: Buffer): Promise<void>;
  /** Called once after the audit's writes: what the copy keeps about its objects is brought up to date. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

export type CopySpec =
  | { name: string; kind: "mirror" | "folder"; path: string; everyHours?: number }
  | { name: string; kind: "s3"; url: string; everyHours?: number };

const isObject = (key: string): boolean => key === blobLayout.marker || blobLayout.parse(key) !== null;

/** Opens a copy, checking it can be read: an audit that cannot read a copy fails before comparing anything. */
export async function openCopy(c: CopySpec): Promise<CopyPlace> {
  return c.kind === "s3" ? openS3Copy(c.name, c.url) : openFolderCopy(c.name, c.kind === "mirror" ? join(c.path, "blobs") : c.path, c.kind === "mirror" ? join(c.path, "blobs.json") : null);
}

type Manifest = Record<string, { size: number; sha256: string }>;

function openFolderCopy(name: string, root: string, manifestFile: string | null): CopyPlace {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Invalid(say("copies.unreadable", { name, folder: root }), "copies");
  const file = (key: string): string => join(root, ...key.split("/"));
  // a mirror keeps a manifest of the objects it fetched; a repaired object is entered there too
  const manifest: Manifest | null = manifestFile && existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest) : null;
  let changed = false;
  return {
    async held() {
      const out = new Map<string, string>();
      const visit = (d: string): void => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const full = join(d, e.name);
          if (e.isDirectory()) visit(full);
          else if (e.isFile()) {
            const key = relative(root, full).split(sep).join("/");
            if (isObject(key)) out.set(key, sha256Hex(readFileSync(full)));
          }
        }
      };
      visit(root);
      return out;
    },
    async read(key) {
      return existsSync(file(key)) ? readFileSync(file(key)) : null;
    },
    async write(key, bytes) {
      writeDurably(file(key), bytes);
      if (manifest) {
        manifest[key] = { size: bytes.length, sha256: sha256Hex(bytes) };
        changed = true;
      }
    },
    async finish() {
      if (manifest && manifestFile && changed) writeDurably(manifestFile, JSON.stringify(manifest));
    },
    async close() {},
  };
}

/** Where an S3 copy is, for a sentence: bucket and prefix without the query (which may carry credentials). */
function whereOf(url: string): string {
  const endpoint = (() => {
    try {
      return new URL(url).searchParams.get("endpoint");
    } catch {
      return null;
    }
  })();
  return `${url.split("?")[0]}${endpoint ? ` (${endpoint})` : ""}`;
}

async function openS3Copy(name: string, url: string): Promise<CopyPlace> {
  const where = whereOf(url);
  const unreachable = (err: unknown): Invalid => new Invalid(say("copies.s3Unreachable", { name, where, problem: err instanceof Error ? err.message : String(err) }), "copies");
  /** Every request to the copy: a failure is the copy being out of reach, said as such. */
  const reach = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw unreachable(err);
    }
  };
  const objects = await reach(() => openS3Objects(url));
  return {
    async held() {
      return reach(async () => {
        const out = new Map<string, string>();
        for await (const key of objects.list("")) {
          if (!isObject(key)) continue;
          const bytes = await objects.readSmall(key);
          if (bytes) out.set(key, sha256Hex(bytes));
        }
        return out;
      });
    },
    read: (key) => reach(() => objects.readSmall(key)),
    write: (key, bytes) => reach(async () => void (await objects.writeSmall(key, bytes, "replace"))),
    async finish() {},
    close: () => objects.close(),
  };
}
