import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { Forbidden } from "./errors.ts";

/** The real path of `p`, or of its nearest existing parent joined with the rest when it does not exist yet. */
async function realish(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    const parent = dirname(p);
    return parent === p ? p : join(await realish(parent), basename(p));
  }
}

/**
 * A path inside `root`, or Forbidden: the one check for a path that arrives as data (a job's payload, a job's
 * result, a stored record) before anything is opened or written there. The path must be absolute; it is resolved
 * (so ".." cannot step out) and its real path, or its nearest existing parent's when it does not exist yet, must
 * lie under the root's real path (so a symbolic link cannot lead out either). `what` names it in the refusal.
 */
export async function containedPath(root: string, path: unknown, what = "path"): Promise<string> {
  const refuse = new Forbidden(`The ${what} lies outside the archive's own folder for it; it was not used.`);
  if (typeof path !== "string" || path.length === 0 || path.includes("\u0000") || !isAbsolute(path)) throw refuse;
  const at = resolve(path);
  const [real, rootReal] = await Promise.all([realish(at), realish(resolve(root))]);
  if (real !== rootReal && !real.startsWith(rootReal + sep)) throw refuse;
  return at;
}
