// The CLI as one ES module for the test run (scripts/run-tests.mjs sets DALIL_CLI_BUNDLE to it). The tests start
// `dalil` as a child process a few hundred times; through tsx each start resolves and loads some three hundred
// source files and costs one to two seconds, the bundle a third of that. Built anew at the start of every run
// from the sources, so it cannot be stale; an operator's `dalil` still runs the sources through tsx (bin/dalil.js).
//
// Each source keeps its own place: `import.meta.url` and `import.meta.dirname` are replaced, file by file, with
// the source file's own, so paths the code finds beside itself (web/dist, the message words, worker entries,
// package.json) are the same as when it runs unbundled.
//
// The packages go into the bundle too, but for those that find files beside themselves or load native code
// (EXTERNAL, imported from node_modules as an operator's `dalil` does). Loaded from node_modules, the rest were
// some six hundred files at every start (kysely alone 265): `dalil --help` took 1.1 s and 1.4 CPU-seconds, and
// with them in the bundle 0.65 s and 0.85 (measured 2026-12-05, 2 idle cores; through tsx 1.7 s and 2.8).
import { readFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** Native code, or files read or run from beside the package (workers, binaries, models, language data). */
export const EXTERNAL = [
  "better-sqlite3",
  "sharp",
  "@node-rs/argon2",
  "pg-native",
  "exiftool-vendored",
  "tesseract.js",
  "@tesseract.js-data/*",
  "@tensorflow/*",
  "@vladmandic/face-api",
  "playwright-core",
];

/** The CommonJS packages in a bundle call `require` for node's own modules; an ES module has none of its own. */
export const REQUIRE_BANNER = 'import { createRequire as __dalilRequire } from "node:module"; const require = __dalilRequire(import.meta.url);';

/** Each of the repository's own files under `dirs` (TypeScript, and the few plain modules such as web/ensure-built.mjs) keeps its own `import.meta` place in a bundle. */
export function ownPlace(dirs) {
  const roots = dirs.map((d) => d + sep);
  return {
    name: "own-place",
    setup(b) {
      b.onLoad({ filter: /\.(ts|mjs|js)$/ }, async (args) => {
        if (!roots.some((r) => args.path.startsWith(r))) return undefined;
        const text = await readFile(args.path, "utf8");
        const contents = text
          .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
          .replaceAll("import.meta.filename", JSON.stringify(args.path));
        return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      });
    },
  };
}

export async function buildCliBundle(root, outfile) {
  await build({
    entryPoints: [join(root, "src", "cli", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL,
    banner: { js: REQUIRE_BANNER },
    logLevel: "error",
    plugins: [ownPlace([resolve(root, "src")])],
  });
  return outfile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = await buildCliBundle(process.cwd(), resolve(process.argv[2] ?? "test-artifacts/dalil-cli.mjs"));
  console.log(out);
}
