import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface S3rverHandle {
  /** s3://bucket?endpoint=…&region=us-east-1&forcePathStyle=true — append a path for a prefix of your own. */
  url: string;
  /** The same URL with a key prefix, so tests sharing one server do not see each other's objects. */
  urlFor(prefix: string): string;
  endpoint: string;
  bucket: string;
  /** Credentials s3rver accepts (it checks the key id, not V4 signatures). */
  env: { AWS_ACCESS_KEY_ID: string; AWS_SECRET_ACCESS_KEY: string };
  /** The server's files: objects are stored as <dir>/<bucket>/<key>._S3rver_object. */
  dir: string;
  stop(): Promise<void>;
  /** Stops the server (as a crash would: SIGKILL) and keeps its objects, for restart(). */
  halt(): Promise<void>;
  /** Starts the server again on the same port over the same objects (after halt()). */
  restart(): Promise<void>;
}

/**
 * A real S3-compatible server (npm s3rver) on 127.0.0.1 at a free port, with its own temp directory and one
 * bucket. It runs in a child process, so its memory and its global error handlers stay out of the test's; the
 * child exits when the test process does (its stdin closes).
 *
 * What works with @aws-sdk/client-s3 v3 (default checksums included): PutObject, multipart upload, CopyObject,
 * ranged GET, HEAD, ListObjectsV2 with continuation, DELETE. Gaps of s3rver 3.7: PUT and copy are neither atomic
 * nor read-after-write consistent (patched below); no AbortMultipartUpload (MethodNotAllowed); no
 * ListMultipartUploads or UploadPartCopy (NotImplemented); If-None-Match on PUT ignored; V4 signatures not
 * checked; a Range ending at byte 0 ("bytes=0-0") returns the whole object.
 */
export async function startS3rver(opts: { bucket?: string } = {}): Promise<S3rverHandle> {
  const bucket = opts.bucket ?? `dalil-test-${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "dalil-s3rver-"));
  const s3rverPath = createRequire(import.meta.url).resolve("s3rver");
  // s3rver's filesystem store answers a PUT before the object's file is written and copies straight into the
  // destination, so a read right after a write can see a short or mixed object (and then hang until the socket
  // times out). It also writes each object's metadata.json in place: a server killed in that write (halt())
  // leaves half a JSON file, and from then on every listing, HeadBucket included, answers 500. Real S3 is atomic
  // and read-after-write consistent; these replacements make s3rver so too: every file of an object is written
  // (or copied) to a side file, then renamed over its place.
  const code = `
    const S3rver = require(process.env.S3RVER_PATH);
    const crypto = require("crypto"), fs = require("fs"), path = require("path"), { Transform, pipeline } = require("stream");
    const Store = require(path.join(path.dirname(process.env.S3RVER_PATH), "stores", "filesystem.js"));
    const side = (p) => p + ".incoming-" + crypto.randomBytes(6).toString("hex");
    const copyAtomic = async (from, to) => { const tmp = side(to); await fs.promises.copyFile(from, tmp); await fs.promises.rename(tmp, to); };
    const putMetadata = Store.prototype.putMetadata;
    Store.prototype.putMetadata = async function (bucket, key, metadata, md5) {
      // the original writes the two files in place; run it against side files, then rename both
      const real = { json: this.getResourcePath(bucket, key, "metadata.json"), md5: this.getResourcePath(bucket, key, "object.md5") };
      const tmp = { json: side(real.json), md5: side(real.md5) };
      const getResourcePath = this.getResourcePath;
      const self = Object.create(this, { getResourcePath: { value: (b, k, r) => (r === "metadata.json" ? tmp.json : r === "object.md5" ? tmp.md5 : getResourcePath.call(this, b, k, r)) } });
      await putMetadata.call(self, bucket, key, metadata, md5);
      if (md5) await fs.promises.rename(tmp.md5, real.md5);
      await fs.promises.rename(tmp.json, real.json);
    };
    Store.prototype.putObject = async function (object) {
      const objectPath = this.getResourcePath(object.bucket, object.key, "object");
      await fs.promises.mkdir(path.dirname(objectPath), { recursive: true });
      const tmp = side(objectPath), md5 = crypto.createHash("md5");
      let size = 0;
      if (Buffer.isBuffer(object.content)) {
        md5.update(object.content);
        size = object.content.length;
        await fs.promises.writeFile(tmp, object.content);
      } else {
        await new Promise((resolve, reject) => pipeline(object.content,
          new Transform({ transform(c, e, cb) { md5.update(c); size += c.length; cb(null, c); } }),
          fs.createWriteStream(tmp), (err) => (err ? reject(err) : resolve())));
      }
      await fs.promises.rename(tmp, objectPath);
      const digest = md5.digest("hex");
      await this.putMetadata(object.bucket, object.key, object.metadata, digest);
      return { size, md5: digest };
    };
    Store.prototype.copyObject = async function (srcBucket, srcKey, destBucket, destKey, replacementMetadata) {
      const src = this.getResourcePath(srcBucket, srcKey, "object");
      const dest = this.getResourcePath(destBucket, destKey, "object");
      if (src !== dest) {
        await fs.promises.mkdir(path.dirname(dest), { recursive: true });
        await copyAtomic(src, dest);
        for (const r of ["metadata.json", "object.md5"]) {
          await copyAtomic(this.getResourcePath(srcBucket, srcKey, r), this.getResourcePath(destBucket, destKey, r))
            .catch((e) => { if (e.code !== "ENOENT") throw e; });
        }
      }
      if (replacementMetadata) await this.putMetadata(destBucket, destKey, replacementMetadata);
      return this.getMetadata(destBucket, destKey);
    };
    const srv = new S3rver({ port: Number(process.env.S3RVER_PORT), address: "127.0.0.1", silent: true, directory: process.env.S3RVER_DIR,
      configureBuckets: [{ name: process.env.S3RVER_BUCKET }] });
    srv.run().then((a) => process.stdout.write(JSON.stringify({ port: a.port }) + "\\n"),
      (e) => { console.error(e); process.exit(1); });
    process.stdin.on("end", () => process.exit(0));
    process.stdin.resume();
    process.on("SIGTERM", () => process.exit(0));
  `;
  let child = spawnS3rver(code, { S3RVER_PATH: s3rverPath, S3RVER_DIR: dir, S3RVER_BUCKET: bucket, S3RVER_PORT: "0" });
  let exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await portOf(child);
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;
  const query = `endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true`;
  return {
    url: `s3://${bucket}?${query}`,
    urlFor: (prefix) => `s3://${bucket}/${prefix.replace(/^\/+/, "")}?${query}`,
    endpoint,
    bucket,
    env: { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" },
    dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
    async halt() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    async restart() {
      child = spawnS3rver(code, { S3RVER_PATH: s3rverPath, S3RVER_DIR: dir, S3RVER_BUCKET: bucket, S3RVER_PORT: String(port) });
      exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await portOf(child);
    },
  };
}

function spawnS3rver(code: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["-e", code], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env, NODE_OPTIONS: "" } });
}

function portOf(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("s3rver did not start within 15 s")), 15_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        try {
          resolve((JSON.parse(line) as { port: number }).port);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    child.once("exit", (c) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with code ${c} before it was ready`));
    });
  });
}
