/**
 * The archive's blob store: originals and renditions, addressed by the SHA-256 of their bytes, encrypted at rest,
 * on a local directory or an S3-compatible bucket. Format: docs/formats/blob-store.md; why: docs/decisions/0002.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Invalid } from "../../core/errors.ts";
import { openFsBackend } from "./fs-backend.ts";
import type { Backend } from "./backend.ts";
import type { BlobKeys } from "./keys.ts";
import { createBlobStore } from "./store.ts";
import type { BlobStore, StoreOptions } from "./store.ts";
import { say } from "../../core/messages.ts";

export type { BlobStore, ByteRange, CleanupReport, PutOptions, PutResult, RewrapReport, StoreOptions, VerifyResult } from "./store.ts";
export type { BlobKeys, MasterKey, RotationResult } from "./keys.ts";
export { generateKey, loadOrCreateBlobKeys, masterKey, rotateMasterKey } from "./keys.ts";
export { keyIdOf } from "./format.ts";
export type { Backend } from "./backend.ts";

export interface OpenOptions extends StoreOptions {
  /** Where S3 credentials are looked up (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * url: a directory path, file:///dir, or s3://bucket[/prefix]?endpoint=http://host:port&region=…&forcePathStyle=true
 * (credentials from the URL's accessKeyId/secretAccessKey or the environment).
 */
export async function openBlobStore(url: string, keys: BlobKeys, opts: OpenOptions = {}): Promise<BlobStore> {
  if (url.startsWith("s3://")) {
    // Loaded on demand: the AWS SDK costs a second of start-up that filesystem users need not pay.
    const { openS3Backend } = await import("./s3-backend.ts");
    return createBlobStore(await openS3Backend(url, opts.env ?? process.env), keys, opts);
  }
  let dir: string;
  if (url.startsWith("file://")) dir = fileURLToPath(url);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new Invalid(say("blob.urlScheme", { url: url.split("?")[0] ?? url }));
  } else dir = resolve(url);
  return createBlobStore(await openFsBackend(dir), keys, opts);
}

/**
 * The raw objects at an S3 location (s3://… as openBlobStore takes it), without the store's encryption: what a
 * copy of the store kept in a bucket holds. Checked reachable at open (NotFound, Forbidden or an Error saying why).
 */
export async function openS3Objects(url: string, env: NodeJS.ProcessEnv = process.env): Promise<Backend> {
  // Loaded on demand, as in openBlobStore: the AWS SDK only for those who use S3.
  const { openS3Backend } = await import("./s3-backend.ts");
  return openS3Backend(url, env);
}
