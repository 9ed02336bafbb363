// The CLI as one ES module for the test run (scripts/run-tests.mjs sets DALIL_CLI_BUNDLE to it). The tests start
// `dalil` as a child process a few hundred times; through tsx each start resolves and loads some three hundred
// source files and costs one to two seconds, the bundle a third of that. Built anew at the start of every run
// from the sources, so it cannot be stale; an operator's `dalil` still runs the sources through tsx (bin/dalil.js).
//
// Each source keeps its own place: `import.meta.url` and `import.meta.dirname` are replaced, file by file, with
// the source file's own, so paths the code finds beside itself (web/dist, the message words, worker entries,
// package.json) are the same as when it runs unbundled. Packages stay outside (imported from node_modules).
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

export async function buildCliBundle(root, outfile) {
  const src = resolve(root, "src");
  await build({
    entryPoints: [join(src, "cli", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
    plugins: [
      {
        name: "own-place",
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (!args.path.startsWith(src)) return undefined;
            const text = await readFile(args.path, "utf8");
            const contents = text
              .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
              .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
              .replaceAll("import.meta.filename", JSON.stringify(args.path));
            return { contents, loader: "ts" };
          });
        },
      },
    ],
  });
  return outfile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = await buildCliBundle(process.cwd(), resolve(process.argv[2] ?? "test-artifacts/dalil-cli.mjs"));
  console.log(out);
}
