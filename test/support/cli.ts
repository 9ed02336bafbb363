import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** `dalil` as an operator runs it: bin/dalil.js in a child process, with extra environment (in English unless DALIL_LANG says otherwise); never throws. */
export const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));

export function dalil(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, DALIL_LANG: "en", ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A new archive made by `dalil init` in the fresh folder (and database), its bodies imported from CSV lines: its `--data` arguments and environment. */
export async function cliArchiveWithBodies(fresh: { dataDir: string; databaseUrl?: string }, csvLines: string[]): Promise<{ d: string[]; env: Record<string, string> }> {
  const env: Record<string, string> = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
  const d = ["--data", join(fresh.dataDir, "archive")];
  const init = await dalil([...d, "init"], env);
  assert.equal(init.code, 0, init.stderr);
  const bodies = join(fresh.dataDir, "bodies.csv");
  writeFileSync(bodies, csvLines.join("\n"));
  const cat = await dalil([...d, "catalogue", "import", bodies], env);
  assert.equal(cat.code, 0, cat.stderr + cat.stdout);
  return { d, env };
}
