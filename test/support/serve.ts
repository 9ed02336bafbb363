/**
 * `dalil serve` as a separate process on a free port, as an operator would run it: bin/dalil.js (the test run's
 * bundle of the sources when there is one). Used by the browser, mirror and deployment tests alike.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { BIN } from "./cli.ts";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface DalilServer {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `port`: a given one (a server started again at the same address); `worker: false`: `serve --no-worker`. */
export async function startDalil(dataDir: string, env: Record<string, string> = {}, opts: { port?: number; worker?: boolean } = {}): Promise<DalilServer> {
  const port = opts.port ?? (await freePort());
  const args = [BIN, "--data", dataDir, "serve", ...(opts.worker === false ? ["--no-worker"] : []), "--port", String(port)];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env, NODE_ENV: "test" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    // Generous: on a loaded 2-core machine (CI running several legs) a cold start takes tens of seconds.
    const timer = setTimeout(() => reject(new Error(`dalil serve did not start in 90 s:\n${out}`)), 90_000);
    const check = (): void => {
      if (out.includes("serving")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`dalil serve exited (${code}):\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(t);
      }
      await exited;
    },
  };
}
