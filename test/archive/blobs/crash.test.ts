import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { openBlobStore } from "../../../src/archive/blobs/index.ts";
import { fsLeg, patternStream, s3Leg, tempsOf, testKeys } from "../../support/blob-legs.ts";

const MiB = 1024 * 1024;
/** Two S3 upload parts, several write batches on disk. */
const SIZE = 12 * MiB;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * A separate process that stores one generated stream and says how far it got ("at 25", "ended" when the source
 * is used up and only sealing and commit remain); it is killed with SIGKILL `delayMs` after it prints `trigger`.
 */
function runWriter(
  env: NodeJS.ProcessEnv,
  seed: number,
  trigger: string | null,
  delayMs = 0,
): Promise<{ killed: boolean; endedToDoneMs: number }> {
  const code = `
    import { openBlobStore, loadOrCreateBlobKeys } from ${JSON.stringify(here("../../../src/archive/blobs/index.ts"))};
    import { patternStream } from ${JSON.stringify(here("../../support/blob-legs.ts"))};
    const keys = await loadOrCreateBlobKeys("/nonexistent-keys-dir", process.env);
    const store = await openBlobStore(process.env.STORE_URL, keys, { env: process.env });
    async function* source() {
      let n = 0;
      let said = false;
      for await (const p of patternStream(${SIZE}, 256 * 1024, ${seed})) {
        n += p.length;
        if (!said && n * 4 >= ${SIZE}) { process.stdout.write("at 25\\n"); said = true; }
        yield p;
      }
      process.stdout.write("ended\\n");
    }
    await store.putStream(source());
    process.stdout.write("done\\n");
    await store.close();
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    let out = "";
    let armed = false;
    let endedAt = 0;
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!endedAt && out.includes("ended\n")) endedAt = performance.now();
      if (trigger && !armed && out.includes(`${trigger}\n`)) {
        armed = true;
        if (delayMs <= 0) child.kill("SIGKILL");
        else setTimeout(() => child.kill("SIGKILL"), Math.round(delayMs));
      }
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") return resolve({ killed: true, endedToDoneMs: 0 });
      if (code !== 0) return reject(new Error(`writer failed (${code}): ${stderr.slice(-2000)}`));
      resolve({ killed: false, endedToDoneMs: performance.now() - endedAt });
    });
  });
}

// Both legs at once: most of the time goes into starting writer processes.
describe("crash safety", { concurrency: true }, () => {
  for (const leg of [fsLeg(), s3Leg()]) {
    describe(`a writer killed with SIGKILL on ${leg.name}`, () => {
      before(() => leg.start());
      after(() => leg.stop());

      test("leaves no blob or a whole one, and cleanupTemp clears the rest", async () => {
        const keys = testKeys();
        const location = leg.location();
        const env = {
          ...process.env,
          ...leg.env,
          STORE_URL: location,
          DALIL_MASTER_KEY: keys.master.key.toString("base64"),
          DALIL_NAMING_KEY: keys.naming.toString("base64"),
        };
        const hash = createHash("sha256");
        for await (const p of patternStream(SIZE, 256 * 1024, 1)) hash.update(p as Buffer);
        const sha256 = hash.digest("hex");

        // How long the last steps (seal, flush, sidecar, commit) take, on other bytes so that blob stays absent.
        const { endedToDoneMs: tail } = await runWriter(env, 2, null);
        const store = await openBlobStore(location, keys, { env: leg.env });
        let killed = 0;
        // While streaming, then at three moments of the last steps.
        const moments: [string, number][] = [["at 25", 0], ["ended", 0], ["ended", tail * 0.5], ["ended", tail * 0.9]];
        for (const [trigger, delayMs] of moments) {
          const r = await runWriter(env, 1, trigger, delayMs);
          if (r.killed) killed++;
          if (await store.has(sha256)) {
            assert.deepEqual(await store.verify(sha256), { ok: true, size: SIZE }, `after a kill (${trigger} + ${delayMs} ms): a committed blob is whole`);
          }
        }
        assert.ok(killed >= 2, `writers were killed mid-way (${killed} of ${moments.length})`);

        const raw = await leg.raw(location);
        await store.cleanupTemp({ olderThanMs: 0 });
        assert.deepEqual(await tempsOf(raw), [], "no temporaries after cleanup");
        const final = await store.putStream(patternStream(SIZE, 256 * 1024, 1));
        assert.equal(final.sha256, sha256);
        assert.deepEqual(await store.verify(sha256), { ok: true, size: SIZE });
        await store.close();
        await raw.close();
      });
    });
  }
});
