import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** `dalil` as an operator runs it: bin/dalil.js in a child process, with extra environment; never throws. */
export const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));

export function dalil(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
