import type { ImportProblem } from "./contracts.ts";
import { DalilError } from "./errors.ts";
import { english, type Said } from "./messages.ts";

/**
 * A CSV row's problem: the English sentence (the log's, and an API client's that reads no keys) and the same as a
 * key with parameters, so the web app and a terminal word it in their reader's language.
 */
export function rowProblem(row: number, column: string | null, what: Said | DalilError): ImportProblem {
  if (what instanceof DalilError) return { row, column, message: what.message, key: what.key ?? null, params: what.key ? { ...(what.params ?? {}) } : null };
  return { row, column, message: english(what.key, what.params), key: what.key, params: { ...what.params } };
}
