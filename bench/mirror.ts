import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/core/config.ts";
import { operatorActor, systemActor } from "../src/core/actor.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { custody } from "../src/ledger/index.ts";
import { followOnce, grantMirror, initMirror } from "../src/mirror/index.ts";
import { serveArchive } from "../test/support/mirror.ts";
import { listFiles, row, sha256sumSeconds, timed } from "./support.ts";

/**
 * A mirror's catch-up: an archive of `events` custody events and `photos` stored objects (random bytes of a
 * photograph's size: the mirror moves ciphertext and cannot tell), served over HTTP on this machine, followed
 * from nothing by `followOnce` (checkpoint, every tile, entries, sealed openings, every object, each written and
 * synced, the tree recomputed). The archive is served by `dalil serve` in its own process. The floor: `cp -r` of the same blob folder and `sha256sum` of the copy, in the
 * same run. The target is within 2× of that floor.
 */
export async function benchMirror(events: number, photos: number, photoBytes = 400_000): Promise<void> {
  console.log(`mirror: catch-up of ${events} events and ${photos} objects of ${photoBytes} bytes`);
  const root = mkdtempSync(join(tmpdir(), "dalil-bench-mirror-"));
  process.env.DALIL_MIRROR_RATE = "1000000";
  const a = await openArchive(loadConfig({ data: join(root, "archive") }));
  let closed = false;
  try {
    for (let i = 0; i < photos; i++) await a.blobs.putBuffer(randomBytes(photoBytes));
    const now = new Date();
    for (let done = 0; done < events; ) {
      const n = Math.min(5000, events - done);
      const batch = Array.from({ length: n }, (_, j) => custody("fixity check", systemActor, now, [{ id: `rec_bench${done + j}`, role: "record" }], { checked: done + j }));
      await a.db.transaction((tx) => a.log.appendMany(tx, batch));
      done += n;
    }
    const { token } = await grantMirror(a, operatorActor(), { name: "bench" });
    await a.tree.checkpoint();
    await a.close();
    closed = true;
    // the archive in its own process, as another custodian's mirror meets it: its work is not the follower's
    const served = await serveArchive(join(root, "archive"), { DALIL_MIRROR_RATE: "1000000" });
    const url = served.url;
    try {
      const dir = join(root, "mirror");
      await initMirror(dir, { url, token });
      // the setup's own writes flushed first: neither the follow nor the floor should pay for them
      spawnSync("sync");
      const follow = await timed(() => followOnce(dir));
      const copy = join(root, "copy");
      const floor = await timed(async () => {
        const cp = spawnSync("cp", ["-r", join(root, "archive", "blobs"), copy]);
        if (cp.status !== 0) throw new Error("cp -r failed");
        sha256sumSeconds(listFiles(copy));
      });
      const r = follow.value;
      row(
        "catch-up (followOnce)",
        `${follow.seconds.toFixed(2)} s`,
        { label: "cp -r + sha256sum", value: `${floor.seconds.toFixed(2)} s`, ratio: follow.seconds / floor.seconds },
      );
      row("  held", `${r.size} events, ${r.objectsHeld} objects, ${(r.bytesFetched / 1e6).toFixed(0)} MB`);
    } finally {
      await served.stop();
    }
  } finally {
    if (!closed) await a.close();
    rmSync(root, { recursive: true, force: true });
  }
}
