/**
 * The independent verifier, tools/verify-go (Go's golang.org/x/mod sumdb/note and sumdb/tlog): whether it can be
 * built here, and building it. Under CI=true the tests that use it never skip.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Why the Go verifier cannot be built on this machine, or null when it can. */
export function goVerifierMissing(): string | null {
  const r = spawnSync("go", ["version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) return "the Go toolchain (`go`) is not installed; install Debian's golang-go to run the independent verifier";
  if (!existsSync("/usr/share/gocode/src/golang.org/x/mod/sumdb/note")) return "golang.org/x/mod is missing; install Debian's golang-golang-x-mod-dev";
  return null;
}

/** The node:test skip option for a test that needs it: never skipped under CI=true. */
export function goVerifierSkip(): string | false {
  const missing = goVerifierMissing();
  return missing !== null && process.env.CI !== "true" ? `skipped: ${missing}` : false;
}

/** Builds the verifier to bin (a shared build cache makes re-runs fast); the build's status and output. */
export function buildVerifyGo(bin: string): { status: number | null; output: string } {
  const script = fileURLToPath(new URL("../../tools/verify-go/build.sh", import.meta.url));
  const r = spawnSync(script, [bin], { encoding: "utf8", env: { ...process.env, GOCACHE: join(tmpdir(), "dalil-verify-go-cache") } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
