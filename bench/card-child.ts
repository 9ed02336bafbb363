import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { operatorActor } from "../src/core/actor.ts";
import { ingestCard } from "../src/archive/intake.ts";
import { verifyArchive } from "../src/app/verify.ts";
import { progressBar } from "../src/cli/shell.ts";
import { growHeapInLargeSteps } from "../src/core/heap.ts";

/**
 * One long step of the card bench in a process of its own, so its peak memory is its own: `ingest DATA CARD` or
 * `verify DATA`. Memory is sampled every five seconds, so the parent can say whether it stayed flat. The last line
 * of stdout is the result as JSON; progress (with the time left) goes to stderr.
 */
// As every dalil process does at start (src/cli/main.ts): this child stands in for `dalil ingest` and `dalil verify`.
growHeapInLargeSteps();
const [step, data, card] = process.argv.slice(2) as ["ingest" | "verify", string, string | undefined];
const rss: number[] = [];
const sampler = setInterval(() => rss.push(process.memoryUsage.rss()), 5000);
const archive = await openArchive(loadConfig({ data }));
const bar = progressBar(step);
const t0 = process.hrtime.bigint();
let result: unknown;
if (step === "ingest") {
  result = await ingestCard(archive, operatorActor(), { path: card! }, (p) => bar.update(p.done, p.total));
} else {
  const r = await verifyArchive(archive, operatorActor(), (d, t) => bar.update(d, t));
  result = { checked: r.checked, events: r.events, findings: r.findings.length };
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
bar.end();
clearInterval(sampler);
await archive.close();
console.log(JSON.stringify({ seconds, maxRssKb: process.resourceUsage().maxRSS, rss, result }));
