import { benchIngest } from "./ingest.ts";
import { benchLedger } from "./ledger.ts";
import { runNamesBench } from "./names.ts";
import { benchPackages } from "./packages.ts";
import { benchFamilies } from "./families.ts";
import { benchDuplicates } from "./family-duplicates.ts";
import { benchGrouping } from "./grouping.ts";
import { runLedgerMerkleBench } from "./ledger-merkle.ts";
import { benchSearch } from "./search.ts";
import { benchReport } from "./report.ts";
import { benchOcr } from "./ocr.ts";
import { benchBounds } from "./bounds.ts";
import { benchAuthenticity } from "./authenticity.ts";
import { benchMirror } from "./mirror.ts";
import { benchExhibitions } from "./exhibitions.ts";
import { benchLoad } from "./load.ts";
import { benchCard } from "./card.ts";

/**
 * `npm run bench [-- part …]`: every figure is printed beside a baseline measured in the same run on the same
 * data, as a ratio. Parts: ingest, packages, grouping, families, duplicates (also run by families), names, ledger, search, report, ocr, bounds, authenticity, mirror, exhibitions, load, card (the whole card: long). No timing is ever asserted in a test.
 */
const parts: Record<string, () => Promise<void>> = {
  ingest: () => benchIngest(Number(process.env.BENCH_BODIES ?? 420), process.env.BENCH_DOUBLE !== "0"),
  packages: () => benchPackages(),
  grouping: async () => {
    await benchGrouping(Number(process.env.BENCH_GROUPING_BODIES ?? 500));
  },
  families: async () => {
    await benchFamilies();
    await benchDuplicates();
  },
  duplicates: async () => {
    await benchDuplicates();
  },
  names: async () => {
    await runNamesBench();
  },
  ledger: async () => {
    if (process.env.BENCH_LEDGER_MERKLE !== "0") await runLedgerMerkleBench(Number(process.env.BENCH_EVENTS ?? 1_000_000));
    await benchLedger(Number(process.env.BENCH_EVENTS ?? 1_000_000));
  },
  search: () => benchSearch(),
  report: () => benchReport(),
  ocr: () => benchOcr(),
  bounds: () => benchBounds(Number(process.env.BENCH_BOUNDS_BODIES ?? 2000)),
  authenticity: () => benchAuthenticity(Number(process.env.BENCH_AUTHENTICITY_BODIES ?? 300)),
  mirror: () => benchMirror(Number(process.env.BENCH_MIRROR_EVENTS ?? 100_000), Number(process.env.BENCH_MIRROR_PHOTOS ?? 2000)),
  exhibitions: () => benchExhibitions(),
  load: () => benchLoad(),
  card: () => benchCard(),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const run = wanted.length ? wanted : Object.keys(parts);
console.log(`dalil bench — ${new Date().toISOString()} — node ${process.version}, ${(await import("node:os")).cpus().length} cores`);
for (const name of run) {
  const part = parts[name];
  if (!part) {
    console.error(`unknown bench part ${name}; parts: ${Object.keys(parts).join(", ")}`);
    process.exit(2);
  }
  await part();
}
