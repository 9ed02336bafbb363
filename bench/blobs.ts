/**
 * Blob store throughput against a floor measured in the same run on the same bytes: `sha256sum` over the file.
 * putStream must hash, encrypt and write; verify must read, decrypt and hash, so the ratios say what the
 * encryption and storage cost above merely reading and hashing. A ratio above 1 means faster than sha256sum
 * (coreutils may lack the SHA instructions OpenSSL and Node use; `openssl dgst` is printed as a second floor).
 *
 *   npx tsx bench/blobs.ts [--mb 512] [--small 400] [--s3] [--json]
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKey, masterKey, openBlobStore } from "../src/archive/blobs/index.ts";
import type { BlobKeys } from "../src/archive/blobs/index.ts";
import { startS3rver } from "../test/support/s3rver.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} needs a positive number`);
  return v;
}

const MB = 1024 * 1024;
const sizeMb = arg("mb", 512);
const smallCount = arg("small", 400);
const withS3 = process.argv.includes("--s3");
const json = process.argv.includes("--json");

let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - t) / 1000 };
}

const work = mkdtempSync(join(tmpdir(), "dalil-bench-blobs-"));
const file = join(work, "input.bin");
try {
  const fd = openSync(file, "w");
  for (let i = 0; i < sizeMb; i++) writeSync(fd, randomBytes(MB));
  closeSync(fd);

  // Twice: the first run warms the page cache for everyone.
  spawnSync("sha256sum", [file]);
  const t0 = performance.now();
  const sum = spawnSync("sha256sum", [file], { encoding: "utf8" });
  const sumSeconds = (performance.now() - t0) / 1000;
  if (sum.status !== 0) throw new Error(`sha256sum failed: ${sum.stderr}`);
  const expected = sum.stdout.split(" ")[0];

  // OpenSSL's SHA-256 (SHA-NI where the CPU has it, like Node's) is a second, often much higher, floor.
  const t1 = performance.now();
  const ossl = spawnSync("openssl", ["dgst", "-sha256", file], { encoding: "utf8" });
  const osslSeconds = (performance.now() - t1) / 1000;

  const keys: BlobKeys = { master: masterKey(generateKey()), previous: [], naming: generateKey(), keysDir: null };
  const rows: { backend: string; what: string; seconds: number; mbPerS: number; vsSha256sum: number | null }[] = [];
  rows.push({ backend: "-", what: `sha256sum ${sizeMb} MiB`, seconds: sumSeconds, mbPerS: sizeMb / sumSeconds, vsSha256sum: 1 });
  if (ossl.status === 0) {
    rows.push({ backend: "-", what: "openssl dgst -sha256", seconds: osslSeconds, mbPerS: sizeMb / osslSeconds, vsSha256sum: sumSeconds / osslSeconds });
  }

  const targets: { name: string; url: string; env?: NodeJS.ProcessEnv; stop?: () => Promise<void> }[] = [{ name: "filesystem", url: join(work, "store") }];
  if (withS3) {
    const s3 = await startS3rver();
    targets.push({ name: "s3rver", url: s3.urlFor("bench"), env: s3.env, stop: s3.stop });
  }
  for (const t of targets) {
    const store = await openBlobStore(t.url, keys, { env: t.env ?? process.env });
    const put = await timed(() => store.putStream(createReadStream(file, { highWaterMark: MB })));
    if (put.value.sha256 !== expected) throw new Error("putStream computed another SHA-256 than sha256sum");
    const ver = await timed(() => store.verify(expected as string));
    if (!ver.value.ok) throw new Error(`verify failed: ${ver.value.problem}`);
    rows.push({ backend: t.name, what: "putStream", seconds: put.seconds, mbPerS: sizeMb / put.seconds, vsSha256sum: sumSeconds / put.seconds });
    rows.push({ backend: t.name, what: "verify", seconds: ver.seconds, mbPerS: sizeMb / ver.seconds, vsSha256sum: sumSeconds / ver.seconds });

    // Photo-sized blobs, four at a time, as intake writes originals and renditions.
    const base = randomBytes(200 * 1024);
    let next = 0;
    const many = await timed(() =>
      Promise.all(
        [1, 2, 3, 4].map(async () => {
          while (next < smallCount) {
            const b = Buffer.from(base);
            b.writeUInt32LE(next++, 0);
            await store.putBuffer(b);
          }
        }),
      ),
    );
    rows.push({
      backend: t.name,
      what: `${smallCount} puts of 200 KiB, 4 at a time: ${(smallCount / many.seconds).toFixed(0)} blobs/s`,
      seconds: many.seconds,
      mbPerS: (smallCount * 0.1953125) / many.seconds,
      vsSha256sum: null,
    });
    await store.close();
    await t.stop?.();
  }
  clearInterval(sampler);

  if (json) {
    console.log(JSON.stringify({ sizeMb, peakRssMb: peakRss / MB, rows }, null, 2));
  } else {
    console.log(`blob store bench: ${sizeMb} MiB of random bytes; peak RSS ${(peakRss / MB).toFixed(0)} MiB`);
    for (const r of rows) {
      const ratio = r.vsSha256sum === null ? "" : `  ${r.vsSha256sum.toFixed(2)}× sha256sum speed`;
      console.log(`${r.backend.padEnd(11)} ${r.what.padEnd(52)} ${r.seconds.toFixed(2).padStart(7)} s ${r.mbPerS.toFixed(0).padStart(6)} MB/s${ratio}`);
    }
  }
} finally {
  clearInterval(sampler);
  rmSync(work, { recursive: true, force: true });
}
