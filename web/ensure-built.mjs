// Builds the web app (web/dist) when it is missing or older than its sources: `npm start` and `npm test` run
// this first, and so do the browser tests, so nobody serves or tests a stale app. "Older" is decided by a hash
// of the sources (web/src, web/public, index.html, vite.config.ts, package-lock.json), not by file times,
// which a checkout or a copy can change without changing anything.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const dist = join(web, "dist");
const stamp = join(dist, ".sources-sha256");

function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

export function sourcesHash() {
  const h = createHash("sha256");
  // The web app bundles a few pure modules of the server (src/core/time-left.ts): they count as its sources too.
  const inputs = [...files(join(web, "src")), join(root, "src", "core", "time-left.ts"), ...files(join(web, "public")), join(web, "index.html"), join(web, "vite.config.ts"), join(root, "package-lock.json")];
  for (const f of inputs) {
    if (!existsSync(f)) continue;
    h.update(relative(root, f)).update("\0").update(readFileSync(f)).update("\0");
  }
  return h.digest("hex");
}

export function isBuilt() {
  return existsSync(join(dist, "index.html")) && existsSync(stamp) && readFileSync(stamp, "utf8").trim() === sourcesHash();
}

const lock = join(web, ".build-lock");

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** One build at a time (test files run in parallel processes); a lock older than 5 minutes is a crashed build's. */
function withLock(fn) {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 5 * 60_000) rmSync(lock, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds unless up to date; returns true when it built. Throws when the build fails. */
export function ensureWebBuilt({ quiet = false, force = false } = {}) {
  if (!force && isBuilt()) return false;
  return withLock(() => build(quiet, force));
}

function build(quiet, force) {
  if (!force && isBuilt()) return false;
  const hash = sourcesHash();
  if (!quiet) process.stderr.write("dalil: building the web app (web/dist)…\n");
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  const r = spawnSync(process.execPath, [vite, "build", "--config", join(web, "vite.config.ts"), "--logLevel", quiet ? "error" : "warn"], {
    cwd: root,
    stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
  });
  if (r.status !== 0) throw new Error(`the web app did not build (vite exited ${r.status ?? r.signal})`);
  writeFileSync(stamp, `${hash}\n`);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    ensureWebBuilt({ quiet: process.argv.includes("--quiet"), force: process.argv.includes("--force") });
  } catch (e) {
    process.stderr.write(`dalil: ${e.message}\n`);
    process.exit(1);
  }
}
