import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { custody } from "../../src/ledger/events.ts";

// A separate server process appending events: used to test that concurrent processes serialise appends.
const [data, tag, batches, size] = process.argv.slice(2) as [string, string, string, string];
const a = await openArchive(loadConfig({ data }));
const actor = operatorActor();
for (let b = 0; b < Number(batches); b++) {
  await a.db.transaction(async (tx) => {
    const at = a.clock.now();
    await a.log.appendMany(
      tx,
      Array.from({ length: Number(size) }, (_, i) => custody("validation", actor, at, [{ id: `${tag}-${b}-${i}`, role: "test" }])),
    );
  });
  if (b % 3 === 0) await a.tree.checkpoint();
}
await a.close();
