/**
 * Real processes for mirror tests: `dalil serve` of an archive on a free port (its URL), and `dalil mirror …`
 * child processes. Each child is stopped by its own id.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { BIN } from "./cli.ts";

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => ok(port));
    });
  });
}

export interface ServedArchive {
  url: string;
  stop(): Promise<void>;
}

/**
 * Served without a worker: jobs left by the ingest would otherwise keep appending custody events while a mirror
 * follows, and the test could not say which checkpoint the mirror should hold. Run `dalil worker --once` first.
 */
export async function serveArchive(dataDir: string, env: Record<string, string> = {}, port?: number): Promise<ServedArchive> {
  const p = port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [BIN, "--data", dataDir, "serve", "--no-worker", "--port", String(p)], {
    env: { ...process.env, ...env, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`dalil serve did not start in 90 s:\n${out}`)), 90_000);
    const check = (): void => {
      if (out.includes("serving")) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`dalil serve exited (${code}):\n${out}`));
    });
  });
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  return {
    url: `http://127.0.0.1:${p}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
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
