/**
 * Real processes for mirror tests: `dalil serve` of an archive on a free port (its URL), and `dalil mirror …`
 * child processes. Each child is stopped by its own id.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { BIN } from "./cli.ts";
import { startDalil, type DalilServer } from "./serve.ts";

export type ServedArchive = DalilServer;

/**
 * Served without a worker: jobs left by the ingest would otherwise keep appending custody events while a mirror
 * follows, and the test could not say which checkpoint the mirror should hold. Run `dalil worker --once` first.
 */
export function serveArchive(dataDir: string, env: Record<string, string> = {}, port?: number): Promise<ServedArchive> {
  return startDalil(dataDir, env, { ...(port !== undefined ? { port } : {}), worker: false });
}

/** `dalil mirror follow --once` as a child process the test may kill (SIGKILL) mid-follow. */
export function startFollow(dir: string, env: Record<string, string> = {}): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> } {
  const child = spawn(process.execPath, [BIN, "mirror", "follow", "--once", "--data", dir], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((ok) => child.once("exit", (code, signal) => ok({ code, signal, out })));
  return { child, done };
}
