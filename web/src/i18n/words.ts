/** A language's words: its common file and every area's (web/src/i18n/areas/<area>.<lang>.json), merged. */
export type Tree = { [k: string]: string | Tree };

/**
 * Each area of the app (catalogue, review, families …) may keep its strings in its own pair of files,
 * web/src/i18n/areas/<area>.en.json and <area>.ar.json, each holding one top-level group; they are merged into
 * the common file here, so areas built side by side do not edit the same file.
 */
export function withAreas(base: Tree, areas: Record<string, Tree>): Tree {
  const out: Tree = { ...base };
  for (const [path, tree] of Object.entries(areas)) {
    for (const [k, v] of Object.entries(tree)) {
      if (k in out) throw new Error(`${path}: the group "${k}" is already defined`);
      out[k] = v;
    }
  }
  return out;
}
