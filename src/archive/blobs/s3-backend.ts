import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import type { CompletedPart, S3ClientConfig } from "@aws-sdk/client-s3";
import { Forbidden, IntegrityError, Invalid, NotFound, Unavailable } from "../../core/errors.ts";
import type { Backend, TempWriter } from "./backend.ts";
import { say } from "../../core/messages.ts";

export interface S3Location {
  bucket: string;
  /** Key prefix inside the bucket, "" or ending in "/". */
  prefix: string;
  config: S3ClientConfig;
}

/**
 * s3://bucket[/prefix]?endpoint=http://host:port&region=r&forcePathStyle=true[&accessKeyId=…&secretAccessKey=…]
 * Credentials come from the URL, else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) in env,
 * else the SDK's default chain (instance roles and the like).
 */
export function parseS3Url(url: string, env: NodeJS.ProcessEnv): S3Location {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Invalid(say("blob.urlInvalid", { url }));
  }
  if (u.protocol !== "s3:" || !u.hostname) {
    throw new Invalid(say("blob.urlS3Shape", { url }));
  }
  const q = u.searchParams;
  const path = decodeURIComponent(u.pathname).replace(/^\/+/, "");
  const config: S3ClientConfig = {
    region: q.get("region") ?? env.AWS_REGION ?? "us-east-1",
    forcePathStyle: (q.get("forcePathStyle") ?? (q.has("endpoint") ? "true" : "false")) === "true",
  };
  const endpoint = q.get("endpoint");
  if (endpoint) config.endpoint = endpoint;
  const accessKeyId = q.get("accessKeyId") ?? env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = q.get("secretAccessKey") ?? env.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) {
    const sessionToken = q.has("accessKeyId") ? undefined : env.AWS_SESSION_TOKEN;
    config.credentials = sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
  }
  return { bucket: u.hostname, prefix: path === "" ? "" : path.endsWith("/") ? path : `${path}/`, config };
}

const MiB = 1024 * 1024;
/** S3 allows 10,000 parts of at least 5 MiB; growing the part every 1,000 parts reaches ≈430 GiB. */
function partSize(partNumber: number): number {
  return 8 * MiB * (1 + Math.floor((partNumber - 1) / 1000));
}
/** CopyObject's limit; larger temporaries are committed with a multipart copy. */
const MAX_SINGLE_COPY = 5 * 1024 * MiB;
const COPY_PART = 1024 * MiB;

function status(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null || !("$metadata" in err)) return undefined;
  const m = (err as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return m?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  const name = err instanceof Error ? err.name : "";
  return name === "NoSuchKey" || name === "NotFound" || status(err) === 404;
}

export async function openS3Backend(url: string, env: NodeJS.ProcessEnv): Promise<Backend> {
  const loc = parseS3Url(url, env);
  // Without timeouts the SDK waits forever on a server that accepted the connection and went silent: an
  // intake or a worker would hang, not fail and resume. Five minutes of silence covers a slow reader of a body.
  const client = new S3Client({ requestHandler: { connectionTimeout: 15_000, socketTimeout: 300_000 }, ...loc.config });
  // One request at open turns a misconfiguration into a sentence instead of an SDK error on the first read.
  try {
    await client.send(new HeadBucketCommand({ Bucket: loc.bucket }));
  } catch (err) {
    client.destroy();
    const where = `${loc.bucket} at ${loc.config.endpoint ?? "AWS S3"}`;
    const s = status(err);
    if (s === 404) throw new NotFound(say("blob.noBucket", { where }));
    if (s === 403 || s === 401) {
      throw new Forbidden(say("blob.bucketForbidden", { where }));
    }
    // a server that answers with an error of its own (5xx) is not one that cannot be reached: said apart
    if (s !== undefined && s >= 500) throw new Unavailable(say("blob.serverError", { where, status: s }), { cause: err });
    const why = err instanceof Error ? err.message : String(err);
    throw new Unavailable(say("blob.unreachable", { where, why }), { cause: err });
  }
  return new S3Backend(client, loc.bucket, loc.prefix);
}

class S3Backend implements Backend {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  private k(key: string): string {
    return this.prefix + key;
  }

  private tempKey(id: string): string {
    return this.k(`tmp/${id}`);
  }

  /**
   * Objects that fit in one part are never uploaded as temporaries: the writer keeps them (at most 8 MiB) and
   * commit PUTs them straight to their name, saving a copy and a delete per photo.
   */
  private readonly held = new Map<string, Buffer>();

  async createTemp(): Promise<TempWriter> {
    const id = randomBytes(12).toString("hex");
    return new S3TempWriter(this.client, this.bucket, this.tempKey(id), id, this.held);
  }

  async commitTemp(tempId: string, key: string, expectedSize: number): Promise<boolean> {
    const body = this.held.get(tempId);
    if (body) {
      this.held.delete(tempId);
      if (body.length !== expectedSize) {
        throw new IntegrityError(say("blob.tempSize", { bytes: body.length, expected: expectedSize }));
      }
      // If-None-Match makes this create-if-absent where the server supports it (AWS S3 since 2024, MinIO).
      // 412: the blob exists. 409: a concurrent write of the same name is in progress; AWS asks for a retry.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.k(key), Body: body, IfNoneMatch: "*" }));
          return true;
        } catch (err) {
          if (status(err) === 412) return false;
          if (status(err) !== 409 || attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
    }
    const src = this.tempKey(tempId);
    // S3 has no create-if-absent copy; a concurrent writer of the same blob can still win the race, which is
    // harmless: both wrote the same plaintext, and each wrote its own sidecar before committing.
    if ((await this.size(key)) !== null) {
      await this.discardTemp(tempId);
      return false;
    }
    // A completed upload must be whole before it becomes a blob; S3 is read-after-write consistent, so one look
    // at the temporary object suffices.
    const size = await this.size(`tmp/${tempId}`);
    if (size !== expectedSize) {
      throw new IntegrityError(
        say("blob.tempSizeS3", { bytes: size ?? "no", expected: expectedSize }),
      );
    }
    const copySource = `${this.bucket}/${src.split("/").map(encodeURIComponent).join("/")}`;
    if (size <= MAX_SINGLE_COPY) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.k(key), CopySource: copySource }));
    } else {
      await this.multipartCopy(copySource, this.k(key), size);
    }
    await this.discardTemp(tempId);
    return true;
  }

  private async multipartCopy(copySource: string, dest: string, size: number): Promise<void> {
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: dest }));
    const parts: CompletedPart[] = [];
    try {
      for (let off = 0, n = 1; off < size; off += COPY_PART, n++) {
        const last = Math.min(off + COPY_PART, size) - 1;
        const r = await this.client.send(
          new UploadPartCopyCommand({
            Bucket: this.bucket,
            Key: dest,
            UploadId,
            PartNumber: n,
            CopySource: copySource,
            CopySourceRange: `bytes=${off}-${last}`,
          }),
        );
        parts.push({ PartNumber: n, ETag: r.CopyPartResult?.ETag });
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: dest, UploadId, MultipartUpload: { Parts: parts } }),
      );
    } catch (err) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: dest, UploadId })).catch(() => {});
      throw err;
    }
  }

  async discardTemp(tempId: string): Promise<void> {
    if (this.held.delete(tempId)) return;
    const upload = /^upload:([^:]+):(.+)$/.exec(tempId);
    if (upload && upload[1] !== undefined && upload[2] !== undefined) {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.tempKey(upload[2]), UploadId: upload[1] }),
      );
      return;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.tempKey(tempId) }));
  }

  private async head(key: string): Promise<{ size: number; modified: Date } | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
      return { size: r.ContentLength ?? 0, modified: r.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    return (await this.head(key))?.size ?? null;
  }

  async modified(key: string): Promise<Date | null> {
    return (await this.head(key))?.modified ?? null;
  }

  async readHead(key: string, n: number): Promise<{ bytes: Buffer; size: number } | null> {
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.k(key), Range: `bytes=0-${n - 1}` }),
      );
      const bytes = r.Body ? Buffer.from(await r.Body.transformToByteArray()) : Buffer.alloc(0);
      const total = /\/(\d+)$/.exec(r.ContentRange ?? "")?.[1];
      return { bytes, size: total === undefined ? bytes.length : Number(total) };
    } catch (err) {
      if (isMissing(err)) return null;
      // An empty object has no byte 0, so the range is unsatisfiable.
      if (status(err) === 416) {
        const size = await this.size(key);
        return size === null ? null : { bytes: Buffer.alloc(0), size };
      }
      throw err;
    }
  }

  async readSmall(key: string): Promise<Buffer | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
      if (!r.Body) return Buffer.alloc(0);
      return Buffer.from(await r.Body.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async readRange(key: string, start: number, end: number): Promise<Readable | null> {
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.k(key), Range: `bytes=${start}-${end}` }),
      );
      return r.Body as Readable;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async writeSmall(key: string, data: Buffer, mode: "create" | "replace"): Promise<boolean> {
    if (mode === "create" && (await this.size(key)) !== null) return false;
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.k(key),
          Body: data,
          ...(mode === "create" ? { IfNoneMatch: "*" } : {}),
        }),
      );
      return true;
    } catch (err) {
      if (mode === "create" && status(err) === 412) return false;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
  }

  private async *listRaw(prefix: string): AsyncIterable<{ key: string; modified: Date }> {
    let token: string | undefined;
    do {
      const r = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.k(prefix), ContinuationToken: token }),
      );
      for (const o of r.Contents ?? []) {
        if (o.Key) yield { key: o.Key.slice(this.prefix.length), modified: o.LastModified ?? new Date(0) };
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const o of this.listRaw(prefix)) yield o.key;
  }

  async *listTemp(): AsyncIterable<{ id: string; modified: Date }> {
    for await (const o of this.listRaw("tmp/")) yield { id: o.key.slice("tmp/".length), modified: o.modified };
    // Multipart uploads cut off by a crash hold storage but are invisible to listings; abort the old ones
    // where the server can list them (s3rver cannot: it answers NotImplemented).
    let uploads: { Key?: string; UploadId?: string; Initiated?: Date }[] = [];
    try {
      const r = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.k("tmp/") }));
      uploads = r.Uploads ?? [];
    } catch {
      uploads = [];
    }
    for (const u of uploads) {
      if (u.Key && u.UploadId) yield { id: `upload:${u.UploadId}:${u.Key.slice(this.k("tmp/").length)}`, modified: u.Initiated ?? new Date(0) };
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

class S3TempWriter implements TempWriter {
  private pieces: Buffer[] = [];
  private pending = 0;
  private partNumber = 0;
  private uploadId: string | undefined;
  private readonly parts: CompletedPart[] = [];
  private inflight: Promise<void> | null = null;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    readonly id: string,
    private readonly held: Map<string, Buffer>,
  ) {}

  async write(data: Buffer): Promise<void> {
    this.pieces.push(data);
    this.pending += data.length;
    while (this.pending >= partSize(this.partNumber + 1)) await this.sendPart(this.take(partSize(this.partNumber + 1)));
  }

  private take(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const p = this.pieces[0];
      if (!p) throw new Error("internal: part buffer underrun");
      const k = Math.min(p.length, n - off);
      p.copy(out, off, 0, k);
      off += k;
      if (k === p.length) this.pieces.shift();
      else this.pieces[0] = p.subarray(k);
    }
    this.pending -= n;
    return out;
  }

  /** One part uploads while the next fills: memory stays at about two parts. */
  private async sendPart(body: Buffer): Promise<void> {
    if (!this.uploadId) {
      const r = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }));
      this.uploadId = r.UploadId;
    }
    if (this.inflight) await this.inflight;
    const n = ++this.partNumber;
    const uploadId = this.uploadId;
    this.inflight = this.client
      .send(new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId, PartNumber: n, Body: body }))
      .then((r) => {
        this.parts.push({ PartNumber: n, ETag: r.ETag });
      });
    // Rejections are re-thrown at the next await of inflight; mark handled so none is reported as unhandled.
    this.inflight.catch(() => {});
  }

  async finish(): Promise<void> {
    if (!this.uploadId) {
      this.held.set(this.id, this.take(this.pending));
      return;
    }
    if (this.pending > 0) await this.sendPart(this.take(this.pending));
    if (this.inflight) await this.inflight;
    this.parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
  }

  async abort(): Promise<void> {
    this.pieces = [];
    this.pending = 0;
    this.held.delete(this.id);
    if (this.inflight) await this.inflight.catch(() => {});
    if (this.uploadId) {
      // s3rver answers MethodNotAllowed here; real S3 frees the parts.
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }))
        .catch(() => {});
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key })).catch(() => {});
  }
}
