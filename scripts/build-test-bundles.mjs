// The test files as ES modules for the test run (scripts/run-tests.mjs). Through tsx, every test file's process
// resolved and compiled some three hundred sources before its first test: 1.2 to 2 CPU-seconds a file, about 250 of
// the suite's 1,470 CPU-seconds over 170 files (measured 2026-12-05 on 2 cores). Built anew at the start of every run
// in one esbuild pass, with what the files share split into common chunks, so a run cannot test stale code.
// The sources and the tests keep their own `import.meta` place (see build-cli-bundle.mjs), and the source maps point
// a failure's stack at the .ts lines. `DALIL_TEST_TSX=1` runs the files through tsx as before.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { EXTERNAL, REQUIRE_BANNER, ownPlace } from "./build-cli-bundle.mjs";

/**
 * Test files that import TypeScript by a path computed at run time, which a bundle cannot hold: each runs through
 * tsx, from a small module that registers it. web-contracts: it imports every module's contracts.ts it finds and
 * needs them to be the very objects the routes hold.
 */
export const THROUGH_TSX = ["test/http/web-contracts.test.ts"];

/**
 * Into the bundles go the packages the CLI bundle holds (the sources' dependencies, which it has shown bundle
 * well); the tests' own (typescript, axe-core, s3rver …) are loaded from node_modules as they are: some find files
 * beside themselves through __filename, which a bundle would take from them.
 */
function onlyTheCliPackages(root) {
  const deps = new Set(Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies ?? {}));
  return {
    name: "only-the-cli-packages",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("node:")) return undefined;
        const parts = args.path.split("/");
        const name = args.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
        // a package's own imports follow it; from the repository's files, only a dependency is bundled
        if (args.importer.includes(`${sep}node_modules${sep}`) || deps.has(name)) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/** Bundles `files` (paths relative to `root`) into `outdir`; returns the files to hand node's test runner, in order. */
export async function buildTestBundles(root, files, outdir) {
  const bundled = files.filter((f) => !THROUGH_TSX.includes(f));
  if (bundled.length > 0) {
    await build({
      entryPoints: bundled.map((f) => resolve(root, f)),
      outdir,
      outbase: root,
      entryNames: "[dir]/[name]",
      chunkNames: "chunks/[name]-[hash]",
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: EXTERNAL,
      banner: { js: REQUIRE_BANNER },
      sourcemap: "linked",
      logLevel: "error",
      plugins: [onlyTheCliPackages(root), ownPlace([resolve(root, "src"), resolve(root, "test"), resolve(root, "web"), resolve(root, "bench")])],
    });
  }
  return files.map((f) => {
    const out = join(outdir, f.replace(/\.ts$/, ".mjs"));
    if (THROUGH_TSX.includes(f)) {
      mkdirSync(join(out, ".."), { recursive: true });
      writeFileSync(out, `import { register } from "tsx/esm/api";\nregister();\nawait import(${JSON.stringify(pathToFileURL(resolve(root, f)).href)});\n`);
    }
    return relative(root, out);
  });
}
