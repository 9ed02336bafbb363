/**
 * Operational log lines to stderr as JSON. Messages name records by id and hash only: never a person's name,
 * a source's identity, a password, a token or a key (see docs/security.md).
 */
export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: Level, msg: string, fields?: Record<string, string | number | boolean | null>): void;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(min: Level = (process.env.DALIL_LOG_LEVEL as Level) ?? "warn"): Logger {
  const threshold = ORDER[min] ?? ORDER.warn;
  return {
    log(level, msg, fields) {
      if (ORDER[level] < threshold) return;
      process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields })}\n`);
    },
  };
}

export const silentLogger: Logger = { log() {} };
