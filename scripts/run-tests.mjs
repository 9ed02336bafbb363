// Lists every test file explicitly: a bare `tsx --test` on Node 20 finds no .ts files and "passes".
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { buildCliBundle } from "./build-cli-bundle.mjs";
import { buildTestBundles } from "./build-test-bundles.mjs";

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
// A hung test must fail the run, not hold it until CI's own limit: after the watchdog's minutes the whole
// process group (the runner, each test file, whatever they started) is killed and the run fails in a sentence.
const minutes = Number(process.env.DALIL_TEST_WATCHDOG_MIN ?? 60);
// Every temporary folder the tests (and the browsers, servers and commands they start) make goes under one of the
// run's own, removed when the run passes: many tests leave theirs, and a day of runs filled /tmp.
const scratch = mkdtempSync(join(tmpdir(), "dalil-tests-"));
// The test files themselves run from bundles built now (see there), or through tsx when asked.
const throughTsx = process.env.DALIL_TEST_TSX === "1";
const bundles = join(process.cwd(), "test-artifacts", `tests-${process.pid}`);
const runnable = throughTsx ? files : await buildTestBundles(process.cwd(), files, bundles);
// DALIL_TEST_TIMES=file.jsonl: each test's file and time too, beside the TAP (scripts/test-times-reporter.mjs).
const times = process.env.DALIL_TEST_TIMES;
const reporters = ["--test-reporter=tap", ...(times ? ["--test-reporter-destination=stdout", "--test-reporter=./scripts/test-times-reporter.mjs", `--test-reporter-destination=${times}`] : [])];
const child = spawn(
  process.execPath,
  [...(throughTsx ? ["--import", "tsx"] : ["--enable-source-maps"]), "--test", "--test-concurrency=2", ...reporters, ...runnable],
  // The tests read the CLI's English sentences; a machine whose locale is Arabic would otherwise get them in Arabic
  // (the tests of the Arabic ones ask for it themselves).
  { stdio: "inherit", detached: true, env: { ...process.env, NODE_ENV: "test", DALIL_CLI_BUNDLE: bundle, DALIL_LANG: "en", TMPDIR: scratch } },
);
const killAll = () => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
};
// the group is its own, so a Ctrl-C at the terminal reaches it only through here
for (const sig of ["SIGINT", "SIGTERM"]) process.once(sig, killAll);
let timedOut = false;
const watchdog = setTimeout(() => {
  timedOut = true;
  console.error(`\nnot ok - the tests did not finish within ${minutes} min: a test or a process it started hangs; all were stopped`);
  killAll();
}, minutes * 60_000);
const status = await new Promise((resolve) => child.once("exit", (code) => resolve(code)));
clearTimeout(watchdog);
rmSync(bundle, { force: true });
rmSync(bundles, { recursive: true, force: true });
const passed = !timedOut && status === 0;
// A failed run keeps what its tests left, to be looked at.
if (passed) rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
else console.error(`# the temporary files of this run are kept in ${scratch}`);
process.exit(timedOut ? 1 : (status ?? 1));
