/**
 * A real witness process for tests: `dalil witness init` in a temp folder, then `dalil witness serve --port 0`
 * in a child process; its URL read from the line it prints. Stop it with stop() (SIGTERM to that child only).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, dalil } from "./cli.ts";

export interface RunningWitness {
  dir: string;
  name: string;
  vkey: string;
  url: string;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function initWitnessDir(name: string, logVkeys: string[], dir = mkdtempSync(join(tmpdir(), "dalil-witness-"))): Promise<{ dir: string; vkey: string }> {
  const init = await dalil(["witness", "init", "--name", name, "--data", dir, "--json"]);
  if (init.code !== 0) throw new Error(`witness init failed: ${init.stderr}`);
  for (const k of logVkeys) {
    const r = await dalil(["witness", "add-log", k, "--data", dir]);
    if (r.code !== 0) throw new Error(`witness add-log failed: ${r.stderr}`);
  }
  return { dir, vkey: (JSON.parse(init.stdout) as { vkey: string }).vkey };
}

export async function serveWitness(dir: string, name: string, vkey: string): Promise<RunningWitness> {
  const child = spawn(process.execPath, [BIN, "witness", "serve", "--port", "0", "--data", dir], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`witness did not start: ${err}`)), 30_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once("exit", (code) => fail(new Error(`witness exited (${code}): ${err}`)));
  });
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  return {
    dir,
    name,
    vkey,
    url,
    child,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export async function startWitness(name: string, logVkeys: string[]): Promise<RunningWitness> {
  const { dir, vkey } = await initWitnessDir(name, logVkeys);
  return serveWitness(dir, name, vkey);
}
