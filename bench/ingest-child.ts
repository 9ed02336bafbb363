import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { operatorActor } from "../src/core/actor.ts";
import { ingestCard } from "../src/archive/intake.ts";

// Run alone in its own process so its peak RSS belongs to the ingest alone.
const [data, card] = process.argv.slice(2) as [string, string];
const archive = await openArchive(loadConfig({ data }));
const t0 = process.hrtime.bigint();
const summary = await ingestCard(archive, operatorActor(), { path: card });
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
await archive.close();
console.log(JSON.stringify({ seconds, maxRssKb: process.resourceUsage().maxRSS, summary }));
