import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZodArray, type ZodTypeAny } from "zod";
import { buildHttpApp } from "../../src/http/app.ts";
import { isBytes, useCaseInputOf, type RouteSpec } from "../../src/http/route-spec.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive } from "../support/accounts.ts";

/**
 * The web app's table of route contracts (web/src/api/contracts.ts) is built from the server's route tables: one
 * entry per route, keyed "METHOD /path", naming the contracts files' schemas of its answer and body (type-only).
 * This test builds it again and compares: a route added, removed or given another contract without the table
 * following fails here; `UPDATE_WEB_CONTRACTS=1 node scripts/run-tests.mjs web-contracts` rewrites it.
 */
const [sqlite] = await backends();
const FILE = join(import.meta.dirname, "../../web/src/api/contracts.ts");

test("web/src/api/contracts.ts has one entry per server route, naming its answer and body contracts", { skip: sqlite!.skip }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  const http = await buildHttpApp(t.ctx);
  try {
    const want = await contractsFile(http.routes);
    if (process.env.UPDATE_WEB_CONTRACTS) writeFileSync(FILE, want);
    assert.equal(readFileSync(FILE, "utf8"), want, "web/src/api/contracts.ts is not the server's route table: run UPDATE_WEB_CONTRACTS=1 node scripts/run-tests.mjs web-contracts");
  } finally {
    await http.app.close();
    await t.close();
  }
});

async function contractsFile(routes: readonly RouteSpec[]): Promise<string> {
  const src = join(import.meta.dirname, "../../src");
  const modules = readdirSync(src).filter((m) => readdirSync(join(src, m)).includes("contracts.ts")).sort();
  const names = new Map<ZodTypeAny, string>();
  for (const m of modules) {
    const exports = (await import(join(src, m, "contracts.ts"))) as Record<string, unknown>;
    for (const [name, v] of Object.entries(exports)) if (v && typeof v === "object" && "_def" in v && !names.has(v as ZodTypeAny)) names.set(v as ZodTypeAny, `${ident(m)}.${name}`);
  }
  const used = new Set<string>();
  const named = (s: ZodTypeAny): string | undefined => {
    const n = names.get(s);
    if (n) used.add(n.split(".")[0]!);
    return n;
  };
  const answer = (r: RouteSpec): string => {
    if (isBytes(r.response)) return "Blob";
    const n = named(r.response);
    if (n) return `z.infer<typeof ${n}>`;
    if (r.response instanceof ZodArray) {
      const e = named(r.response.element as ZodTypeAny);
      if (e) return `z.infer<typeof ${e}>[]`;
    }
    return "unknown";
  };
  const body = (r: RouteSpec): string => {
    if (!r.body) return "undefined";
    const uc = useCaseInputOf(r.body);
    const n = named(uc ? uc.input : r.body);
    if (!n) return "unknown";
    const input = `z.input<typeof ${n}>`;
    return uc && uc.without.length ? `Omit<${input}, ${uc.without.map((k) => JSON.stringify(k)).join(" | ")}>` : input;
  };
  const entries = [...routes]
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
    .map((r) => `  ${JSON.stringify(`${r.method} ${r.url}`)}: { answer: ${answer(r)}; body: ${body(r)} };`);
  const imports = [...used].sort().map((m) => `import type * as ${m} from "../../../src/${m === "httpShell" ? "http" : m}/contracts.ts";`);
  return [
    "// Built from the server's route tables by test/http/web-contracts.test.ts (which fails when this file is not what",
    "// it would build): do not edit by hand; UPDATE_WEB_CONTRACTS=1 node scripts/run-tests.mjs web-contracts rewrites it.",
    'import type { z } from "zod";',
    ...imports,
    "",
    "/**",
    " * Every route of the server, keyed \"METHOD /path\" as its route table declares it: the answer it sends (the",
    " * contract's type; Blob for a file or text; unknown where the route's schema is not a named contract) and the",
    " * body it takes (the use case's input, without the fields the path gives; undefined: no body). The area",
    " * clients call routes through `typedCall`, which reads both from here (decision 0021).",
    " */",
    "export interface RouteContracts {",
    ...entries,
    "}",
    "",
  ].join("\n");
}

/** A module's name as an identifier in the generated file ("http" would shadow nothing, but keep it apart). */
function ident(m: string): string {
  return m === "http" ? "httpShell" : m;
}
