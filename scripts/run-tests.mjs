// Lists every test file explicitly: a bare `tsx --test` on Node 20 finds no .ts files and "passes".
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { buildCliBundle } from "./build-cli-bundle.mjs";

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = walk("test");
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
// `dalil` started as a child process by the tests runs from one bundle of the sources, built now (see there).
const bundle = await buildCliBundle(process.cwd(), join(process.cwd(), "test-artifacts", `dalil-cli-${process.pid}.mjs`));
const r = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=tap", ...files],
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test", DALIL_CLI_BUNDLE: bundle } },
);
rmSync(bundle, { force: true });
process.exit(r.status ?? 1);
