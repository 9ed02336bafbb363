import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkModules } from "../../scripts/check-modules.mjs";

/** A small src/ tree written to a temporary folder: path → source. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "dalil-modules-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function faultsOf(files: Record<string, string>): string[] {
  const root = tree(files);
  try {
    return checkModules(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const SOUND = {
  "core/errors.ts": `export class Oops extends Error {}\n`,
  "app/context.ts": `export interface Ctx { n: number }\n`,
  "ledger/index.ts": `export { custody } from "./events.ts";\n`,
  "ledger/events.ts": `import { Oops } from "../core/errors.ts";\nexport const custody = () => new Oops();\n`,
  "archive/index.ts": `export { ingest } from "./intake.ts";\n`,
  "archive/intake.ts": `import type { Ctx } from "../app/context.ts";\nimport { custody } from "../ledger/index.ts";\nexport const ingest = (c: Ctx) => [c, custody()];\n`,
  "archive/contracts.ts": `export const Ingest = {};\n`,
  "archive/routes.ts": `import { ingest } from "./intake.ts";\nexport const routes = [ingest];\n`,
  "http/app.ts": `import { routes } from "../archive/routes.ts";\nimport { ingest } from "../archive/index.ts";\nexport const app = [routes, ingest];\n`,
};

test("a tree that keeps the rules has no faults (entries, contracts, route tables to the HTTP shell, Ctx as a type)", () => {
  assert.deepEqual(faultsOf(SOUND), []);
});

test("a cycle between modules through runtime imports is a fault naming both directions", () => {
  const faults = faultsOf({
    ...SOUND,
    "archive/index.ts": `export { ingest } from "./intake.ts";\nexport { reveal } from "./reveal.ts";\n`,
    "archive/reveal.ts": `import { policy } from "../access/index.ts";\nexport const reveal = policy;\n`,
    "access/index.ts": `export { policy } from "./policy.ts";\n`,
    "access/policy.ts": `import { ingest } from "../archive/index.ts";\nexport const policy = ingest;\n`,
  });
  assert.equal(faults.length, 1, faults.join("\n"));
  assert.match(faults[0]!, /^cycle between modules: access → archive \(access\/policy\.ts:1\), archive → access \(archive\/reveal\.ts:1\)$/);
});

test("a cycle made only of `import type` is no cycle: types are erased", () => {
  const faults = faultsOf({
    ...SOUND,
    "access/index.ts": `import type { ingest } from "../archive/index.ts";\nexport type Ingest = typeof ingest;\nexport const policy = 1;\n`,
    "archive/intake.ts": `import { policy } from "../access/index.ts";\nexport const ingest = policy;\n`,
  });
  assert.deepEqual(faults, []);
});

test("`import { type X }` still loads the module under verbatimModuleSyntax, so it counts toward a cycle", () => {
  const faults = faultsOf({
    ...SOUND,
    "access/index.ts": `import { type ingest } from "../archive/index.ts";\nexport type Ingest = typeof ingest;\nexport const policy = 1;\n`,
    "archive/intake.ts": `import { policy } from "../access/index.ts";\nexport const ingest = policy;\n`,
  });
  assert.equal(faults.length, 1, faults.join("\n"));
  assert.match(faults[0]!, /^cycle between modules: access → archive/);
});

test("importing another module's tables or any file but its entry is a fault, for types too", () => {
  const faults = faultsOf({
    ...SOUND,
    "archive/tables.ts": `export interface OriginalsTable { sha256: string }\n`,
    "dossiers/index.ts": `export { pack } from "./pack.ts";\n`,
    "dossiers/pack.ts": `import type { OriginalsTable } from "../archive/tables.ts";\nimport { ingest } from "../archive/intake.ts";\nexport const pack = (o: OriginalsTable) => [o, ingest];\n`,
  });
  assert.deepEqual(faults, [
    "dossiers/pack.ts:1: archive/tables.ts is inside module archive; import archive/index.ts",
    "dossiers/pack.ts:2: archive/intake.ts is inside module archive; import archive/index.ts",
  ]);
});

test("a shell other than HTTP may not import a route table, nor a module another module's", () => {
  const faults = faultsOf({
    ...SOUND,
    "cli/main.ts": `import { routes } from "../archive/routes.ts";\nexport const m = routes;\n`,
    "dossiers/index.ts": `import { routes } from "../archive/routes.ts";\nexport const d = routes;\n`,
  });
  assert.deepEqual(faults, [
    "cli/main.ts:1: archive/routes.ts is inside module archive; import archive/index.ts",
    "dossiers/index.ts:1: archive/routes.ts is inside module archive; import archive/index.ts",
  ]);
});

test("core and db import no module and no shell, not even for a type", () => {
  const faults = faultsOf({
    ...SOUND,
    "db/migrations/0003-catalogue.ts": `import { SEED } from "../../catalogue/index.ts";\nexport const up = SEED;\n`,
    "core/clock.ts": `import type { Ctx } from "../app/context.ts";\nexport type C = Ctx;\n`,
    "catalogue/index.ts": `export const SEED = [];\n`,
  });
  assert.deepEqual(faults, [
    "core/clock.ts:1: core is a foundation and imports shell app/context.ts",
    "db/migrations/0003-catalogue.ts:1: db is a foundation and imports module catalogue/index.ts",
  ]);
});

test("a module imports a shell for types only", () => {
  const faults = faultsOf({
    ...SOUND,
    "archive/intake.ts": `import { app } from "../http/app.ts";\nexport const ingest = app;\n`,
  });
  assert.deepEqual(faults, ["archive/intake.ts:1: module archive imports the shell http/app.ts at run time (types only)"]);
});

test("an import() without a comment saying why is a fault; with one it passes", () => {
  const faults = faultsOf({
    ...SOUND,
    "archive/media.ts": [
      `export async function zip() {`,
      `  const z = await import("./zip.ts");`,
      `  // Loaded on first use: the S3 client is heavy.`,
      `  const s3 = await import("./s3.ts");`,
      `  const fat = await import("./fat.ts"); // the reader of disk images, rarely needed`,
      `  return [z, s3, fat];`,
      `}`,
      ``,
    ].join("\n"),
    "archive/zip.ts": `export const z = 1;\n`,
    "archive/s3.ts": `export const s = 1;\n`,
    "archive/fat.ts": `export const f = 1;\n`,
  });
  assert.deepEqual(faults, ["archive/media.ts:2: import() without a comment saying why it is dynamic"]);
});

test("a dynamic import across modules is a runtime edge: it cannot hide a cycle", () => {
  const faults = faultsOf({
    ...SOUND,
    "access/index.ts": `import { ingest } from "../archive/index.ts";\nexport const policy = ingest;\n`,
    "archive/intake.ts": `export async function ingest() {\n  // late, to dodge the loop (and still caught)\n  return import("../access/index.ts");\n}\n`,
  });
  assert.equal(faults.length, 1, faults.join("\n"));
  assert.match(faults[0]!, /^cycle between modules: access → archive \(access\/index\.ts:1\), archive → access \(archive\/intake\.ts:3\)$/);
});

test("a module that queries another module's table is a fault; its own tables, shared ones and listed joins pass", () => {
  const faults = faultsOf({
    ...SOUND,
    "ledger/verify.ts": [
      `export async function v(db: any) {`,
      `  await db.selectFrom("custody_events").selectAll().execute();`,
      `  await db.selectFrom("jobs").selectAll().execute();`,
      `  await db.selectFrom("originals as o").innerJoin("sources", "sources.id", "o.source").selectAll().execute();`,
      "  await sql`select count(*) from renditions`.execute(db);",
      `}`,
      ``,
    ].join("\n"),
    "catalogue/proposals.ts": `export const b = (db: any) => db.selectFrom("sightings").innerJoin("originals", "a", "b");\n`,
  });
  assert.deepEqual(faults, [
    "ledger/verify.ts:4: module ledger queries archive's table sources; ask archive/index.ts",
    "ledger/verify.ts:4: module ledger queries archive's table originals; ask archive/index.ts",
    "ledger/verify.ts:5: module ledger queries archive's table renditions; ask archive/index.ts",
  ]);
});

test("the project's own src/ passes, and the command exits non-zero with the faults of a bad tree", () => {
  const ok = spawnSync(process.execPath, ["scripts/check-modules.mjs"], { encoding: "utf8" });
  assert.equal(ok.status, 0, ok.stderr);
  const root = tree({ ...SOUND, "ledger/verify.ts": `import { ingest } from "../archive/intake.ts";\nexport const v = ingest;\n` });
  try {
    const bad = spawnSync(process.execPath, ["scripts/check-modules.mjs", root], { encoding: "utf8" });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /ledger\/verify\.ts:1: archive\/intake\.ts is inside module archive/);
    assert.match(bad.stderr, /cycle between modules: archive → ledger/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
