import type { Command } from "commander";
import { loadConfig } from "../core/config.ts";
import { DalilError, Invalid } from "../core/errors.ts";
import { openArchive, type Archive } from "../app/context.ts";

/** What every command shares: --data, --json, opening the archive, printing results and errors. */
export interface CommonOptions {
  data?: string;
  json?: boolean;
}

export function globalOptions(cmd: Command): CommonOptions {
  return cmd.optsWithGlobals<CommonOptions>();
}

export async function withArchive<T>(opts: CommonOptions, fn: (a: Archive) => Promise<T>): Promise<T> {
  const archive = await openArchive(loadConfig({ data: opts.data }));
  try {
    return await fn(archive);
  } finally {
    await archive.close();
  }
}

export function print(opts: CommonOptions, value: unknown, text?: string): void {
  if (opts.json || text === undefined) process.stdout.write(`${JSON.stringify(value, null, opts.json ? 0 : 2)}\n`);
  else process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Errors become one sentence on stderr and an exit code; a stack only for the unexpected, and only with DEBUG. */
export function reportError(err: unknown): number {
  if (err instanceof DalilError) {
    process.stderr.write(`dalil: ${err.message}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`dalil: ${message}\n`);
  if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return 1;
}

/** A one-line progress bar on a terminal; silent when stderr is not one (pipes, CI, --json consumers). */
export function progressBar(label: string): { update(done: number, total: number, note?: string): void; end(): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    update(done, total, note) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const width = 30;
      const frac = total > 0 ? done / total : 0;
      const bar = "█".repeat(Math.round(frac * width)).padEnd(width, "░");
      const tail = note ? ` ${note.length > 40 ? `…${note.slice(-39)}` : note}` : "";
      process.stderr.write(`\r${label} ${bar} ${done}/${total}${tail}\u001b[K`);
    },
    end() {
      if (tty) process.stderr.write("\n");
    },
  };
}

/** A commander option parser for whole numbers above zero, with a sentence when it is not one. */
export function positiveIntOption(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Invalid(`${flag} takes a whole number above zero, not "${v}".`, flag);
    return n;
  };
}
