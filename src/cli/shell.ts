import { existsSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import type { ImportProblem } from "../core/contracts.ts";
import { loadConfig, paths, type Config } from "../core/config.ts";
import { DalilError, Invalid } from "../core/errors.ts";
import { say, terminalLanguage, wordedIn, type Language, type Said } from "../core/messages.ts";
import { spokenDuration, TimeLeft } from "../core/time-left.ts";
import { openArchive } from "../app/open-archive.ts";
import type { Archive } from "../app/context.ts";

/** What every command shares: --data, --json, opening the archive, printing results and errors. */
export interface CommonOptions {
  data?: string;
  json?: boolean;
}

export function globalOptions(cmd: Command): CommonOptions {
  return cmd.optsWithGlobals<CommonOptions>();
}

/**
 * Whether the data directory holds an archive: its SQLite database, or (with PostgreSQL) its keys folder. With
 * every key in the environment and the records in PostgreSQL nothing on disk marks it, and the folder is trusted.
 */
export function holdsArchive(config: Config, env: NodeJS.ProcessEnv = process.env): boolean {
  if (existsSync(paths.sqlite(config)) || existsSync(paths.keys(config))) return true;
  return Boolean(config.databaseUrl && env.DALIL_LOG_KEY && env.DALIL_MASTER_KEY && env.DALIL_NAMING_KEY);
}

/**
 * Opens the archive for a command. Only `init` (and `start`, the demo) may create one: any other command run on
 * a folder that holds no archive (a mistyped --data, a forgotten DALIL_DATA) is refused rather than leaving an
 * empty archive there.
 */
export async function withArchive<T>(opts: CommonOptions, fn: (a: Archive) => Promise<T>, how: { create?: boolean } = {}): Promise<T> {
  const config = loadConfig({ data: opts.data });
  if (!how.create && !holdsArchive(config)) {
    throw new Invalid(say("cli.noArchive", { folder: config.dataDir }), "data");
  }
  const archive = await openArchive(config);
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

/** A file system error the person can act on (a path that is not there, not readable, not a folder), as a message. */
function fileProblem(err: unknown): Said | null {
  if (!(err instanceof Error)) return null;
  const { code, path } = err as NodeJS.ErrnoException;
  // a write to an open file (fd, no path) and a service that does not answer: said plainly, with what to do
  // SQLite says a full disk in its own words ("database or disk is full"): the same sentence for both
  if ((code === "ENOSPC" && !path) || code === "SQLITE_FULL") return say("cli.diskFull");
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ETIMEDOUT") {
    const at = (err as { address?: string }).address;
    const port = (err as { port?: number }).port;
    return at ? say("cli.noAnswer", { server: `${at}${port ? `:${port}` : ""}`, code }) : say("cli.noAnswerUnnamed", { code });
  }
  if (!code || !path) return null;
  switch (code) {
    case "ENOENT":
      return existsSync(dirname(path)) ? say("cli.noFile", { path }) : say("cli.noFolderFor", { folder: dirname(path), path });
    case "EACCES":
    case "EPERM":
      return say("cli.permission", { path });
    case "ENOTDIR":
      return say("cli.notFolder", { path });
    case "EISDIR":
      return say("cli.isFolder", { path });
    case "EEXIST":
      return say("cli.exists", { path });
    case "ENOSPC":
      return say("cli.diskFullAt", { path });
    default:
      return null;
  }
}

/**
 * Errors become one sentence on stderr, in the terminal's language (DALIL_LANG, else the locale), and an exit
 * code; a stack only for the unexpected, and only with DEBUG. In English an error says its own sentence (which
 * may tell more than its key's); a sentence with no message key (an unexpected error's own words) stays as said.
 */
export function reportError(err: unknown, lang: Language = terminalLanguage()): number {
  if (err instanceof DalilError) {
    process.stderr.write(`dalil: ${lang !== "en" && err.key ? wordedIn(lang, err.key, err.params) : err.message}\n`);
    return err.exitCode;
  }
  const problem = fileProblem(err);
  if (problem) {
    process.stderr.write(`dalil: ${wordedIn(lang, problem.key, problem.params)}\n`);
    if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return 2;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`dalil: ${message}\n`);
  if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return 1;
}

/**
 * A CSV import's rejected rows, one a line, in the terminal's language like an error (the row's sentence worded
 * from its key; a problem with no key keeps its own words).
 */
export function rowProblemLines(rejected: readonly ImportProblem[], lang: Language = terminalLanguage()): string[] {
  return rejected.map((x) => {
    const problem = lang !== "en" && x.key ? wordedIn(lang, x.key, x.params ?? {}) : x.message;
    const line = x.column ? say("cli.rowProblem", { row: x.row, column: x.column, problem }) : say("cli.rowProblemWhole", { row: x.row, problem });
    return `  ${wordedIn(lang, line.key, line.params)}`;
  });
}

/**
 * A one-line progress bar with the time left on a terminal. Where stderr is not a terminal (a log file, a
 * service), a long step still says how far it is: one line every half minute, from its first half minute on.
 */
export function progressBar(label: string, out: { isTTY?: boolean; write(s: string): unknown } = process.stderr): { update(done: number, total: number, note?: string): void; end(): void } {
  const tty = Boolean(out.isTTY);
  const left = new TimeLeft();
  const started = Date.now();
  let last = 0;
  let lastLine = started;
  let drawn = false;
  const eta = (done: number, total: number): string => {
    const s = left.seconds(total);
    return s === null || done >= total ? "" : ` · about ${spokenDuration(s)} left`;
  };
  return {
    update(done, total, note) {
      const now = Date.now();
      left.observe(done, now);
      if (!tty) {
        if (now - lastLine < LOG_EVERY_MS) return;
        lastLine = now;
        const pct = total > 0 ? ` (${Math.floor((done / total) * 100)} %)` : "";
        out.write(`${label}: ${done}/${total}${pct}${eta(done, total)}\n`);
        return;
      }
      if (now - last < 100 && done < total) return;
      last = now;
      drawn = true;
      const width = 30;
      const frac = total > 0 ? done / total : 0;
      const bar = "█".repeat(Math.round(frac * width)).padEnd(width, "░");
      const tail = note ? ` ${note.length > 40 ? `…${note.slice(-39)}` : note}` : "";
      out.write(`\r${label} ${bar} ${done}/${total}${eta(done, total)}${tail}\u001b[K`);
    },
    end() {
      if (tty && drawn) out.write("\n");
    },
  };
}

/** Without a terminal, how often a long step writes a line saying how far it is. */
const LOG_EVERY_MS = 30_000;

/** A commander option parser for whole numbers above zero, with a sentence when it is not one. */
/**
 * A use case's input is checked by the use case (its schema, decision 0021); the CLI only turns words into values.
 * A refusal that names a field an option gave is said with the option's name: "--double-share takes …" rather
 * than "doubleShare: takes …".
 */
export async function underFlags<T>(flags: Record<string, string>, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const field = err instanceof Invalid ? err.field : undefined;
    const flag = field !== undefined ? flags[field] : undefined;
    if (!flag || !(err instanceof Invalid)) throw err;
    const why = err.message.startsWith(`${field}: `) ? err.message.slice(field!.length + 2) : err.message;
    // the key stays, so the sentence is still said in the terminal's language (there without the flag's name)
    const named = new Invalid(`${flag} ${why}`, flag);
    throw err.key ? named.says(err.key, err.params) : named;
  }
}

export function positiveIntOption(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Invalid(say("cli.wholeNumber", { flag, value: v }), flag);
    return n;
  };
}
