// Checks the boundaries between the modules of src/ (docs/modules.md, decision 0014):
//  - no cycle between modules through runtime imports (`import type` is erased and does not count);
//  - across modules, only a module's entry (index.ts) is imported; contracts.ts by anyone, route tables
//    (routes.ts, *-routes.ts) by the HTTP shell;
//  - core and db import no module and no shell; a module imports a shell (app, http, cli) for types only;
//  - every `import()` carries a comment (same line or the line above) saying why it is dynamic;
//  - a module queries only its own tables (kysely's selectFrom/insertInto/updateTable/deleteFrom/joins and
//    sql`` text), and asks the owner's exported functions for the rest; core/db tables (jobs, settings) are shared.
// Usage: node scripts/check-modules.mjs [root]   (root defaults to src; exit 1 with one line per fault)
// It reads the files with TypeScript's parser (already a dev dependency), so comments and strings never match.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

// names: pure functions over strings (Arabic and Latin personal names) that depend on core only; db's migration
// 0014 keys the names already in the search index with them, so they are a foundation, not a module
const FOUNDATION = new Set(["core", "db", "names"]);
const SHELLS = new Set(["app", "http", "cli"]);

// Imports allowed past the rules above, each with its reason. Keep this list short; every line is a debt or a
// measured choice (docs/modules.md).
const ALLOWED = [
  // The HTTP shell registers each module's route table; the table is data about the module, not its internals.
  { from: /^http\//, to: /^[a-z-]+\/([a-z-]+-)?routes\.ts$/, why: "the HTTP shell registers route tables" },
  // A route table builds its entries with route(), bytes() and optionalBody(): pure helpers over zod schemas,
  // no server code (decision 0015). Only route tables may, and only this file of the shell.
  { from: /^[a-z-]+\/([a-z-]+-)?routes\.ts$/, to: /^http\/route-spec\.ts$/, why: "route tables are built with the route spec's helpers" },
];

// Who owns each table (the migration that creates it says the same). A table not listed here is not checked: add
// a new table's line when its module is made.
const OWNERS = {
  ledger: ["checkpoints", "checkpoint_cosignatures", "custody_events", "event_objects", "log_hashes", "log_state", "log_openings", "witness_alarms"],
  archive: ["originals", "renditions", "sightings", "sources"],
  access: ["access_audit", "api_tokens", "auth_throttle", "recovery_codes", "sealed_identities", "sessions", "users"],
  catalogue: [
    "bodies", "body_facets", "body_findings", "body_numbers", "body_photos", "body_search", "body_words", "entities", "field_history",
    "body_identifications", "body_documents", "grouping_proposals", "links", "photo_readings", "card_reads", "ref_counters", "vocabularies",
  ],
  review: ["review_assignments", "review_items", "review_samples", "reviews"],
  families: [
    "family_candidates", "family_disclosures", "family_reports", "family_decisions", "family_duplicates", "family_flags", "family_face_previews", "family_report_proposals",
    "family_report_members", "family_view_requests", "family_dna_referrals",
  ],
  dossiers: ["dossier_exhibits", "dossier_versions", "dossiers", "redaction_regions"],
  exhibitions: ["exhibition_items", "exhibition_regions", "exhibitions"],
  mirror: ["mirror_grants"],
};
const OWNER_OF = new Map(Object.entries(OWNERS).flatMap(([module, tables]) => tables.map((t) => [t, module])));

// Reads of another module's table kept on purpose, each measured or explained (docs/modules.md).
const ALLOWED_TABLES = [
  // getBody's photos with their capture time and size, and the search text recomputed on every body write: one
  // join; through archive's originalFacts the same read took 1.2–1.5× as long (`npm run bench -- bounds`).
  { file: "catalogue/bodies.ts", table: "originals" },
  { file: "catalogue/search-index.ts", table: "originals" },
  // A source's photos that are in no body yet (a proposal run, once per card): one query joining sightings,
  // originals and body_photos; through functions it would list every sighting of the card and filter in memory.
  { file: "catalogue/proposals.ts", table: "sightings" },
  { file: "catalogue/proposals.ts", table: "originals" },
];
const QUERY_METHODS = new Set(["selectFrom", "insertInto", "updateTable", "deleteFrom", "innerJoin", "leftJoin", "rightJoin", "fullJoin", "replaceInto", "mergeInto"]);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const top = (rel) => rel.split("/")[0];
const kindOf = (area) => (FOUNDATION.has(area) ? "foundation" : SHELLS.has(area) ? "shell" : "module");
const isEntry = (rel) => /^[a-z-]+\/(index|contracts)\.ts$/.test(rel);

/** Every relative import of one file ({ spec, line, typeOnly, dynamic, commented }) and the tables it queries. */
function importsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const tables = [];
  const lineOf = (node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
  const lines = text.split("\n");
  const commented = (line) => /\/\/|\/\*/.test(lines[line] ?? "") || /^\s*(\/\/|\/\*|\*)/.test(lines[line - 1] ?? "");
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      // `import { type A }` is kept as `import {} from` under verbatimModuleSyntax, so only `import type` is erased.
      const typeOnly = ts.isImportDeclaration(node) ? Boolean(node.importClause?.isTypeOnly) : node.isTypeOnly;
      found.push({ spec: node.moduleSpecifier.text, line: lineOf(node), typeOnly, dynamic: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, line: lineOf(node), typeOnly: true, dynamic: false });
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && QUERY_METHODS.has(node.expression.name.text)) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) tables.push({ table: arg.text.trim().split(/\s+/)[0], line: lineOf(node.expression.name) });
    } else if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === "sql") {
      const raw = node.template.getText(sf);
      for (const m of raw.matchAll(/\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi)) tables.push({ table: m[1], line: lineOf(node) });
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      const spec = arg && ts.isStringLiteralLike(arg) ? arg.text : null;
      found.push({ spec, line: lineOf(node), typeOnly: false, dynamic: true, commented: commented(lineOf(node)) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { imports: found, tables };
}

export function checkModules(rootDir) {
  const root = resolve(rootDir);
  const faults = [];
  const edges = new Map(); // "a>b" → first file and line that makes module a load module b at runtime
  for (const file of walk(root)) {
    const rel = relative(root, file).split(sep).join("/");
    const from = top(rel);
    if (!rel.includes("/")) continue;
    const { imports, tables } = importsOf(file, readFileSync(file, "utf8"));
    if (kindOf(from) === "module") {
      for (const { table, line } of tables) {
        const owner = OWNER_OF.get(table);
        if (!owner || owner === from || ALLOWED_TABLES.some((a) => a.file === rel && a.table === table)) continue;
        faults.push(`${rel}:${line + 1}: module ${from} queries ${owner}'s table ${table}; ask ${owner}/index.ts`);
      }
    }
    for (const imp of imports) {
      const where = `${rel}:${imp.line + 1}`;
      if (imp.dynamic && !imp.commented) faults.push(`${where}: import() without a comment saying why it is dynamic`);
      if (!imp.spec || !imp.spec.startsWith(".")) continue;
      const target = relative(root, resolve(dirname(file), imp.spec)).split(sep).join("/");
      if (target.startsWith("..")) continue;
      const to = top(target);
      if (to === from || !target.includes("/")) continue;
      const fromKind = kindOf(from);
      const toKind = kindOf(to);
      const allowed = ALLOWED.some((a) => a.from.test(rel) && a.to.test(target));
      if (fromKind === "foundation" && toKind !== "foundation") {
        faults.push(`${where}: ${from} is a foundation and imports ${toKind} ${target}`);
        continue;
      }
      if (fromKind === "module" && toKind === "shell") {
        if (!imp.typeOnly && !allowed) faults.push(`${where}: module ${from} imports the shell ${target} at run time (types only)`);
        continue;
      }
      if (toKind === "module" && !isEntry(target) && !allowed) {
        faults.push(`${where}: ${target} is inside module ${to}; import ${to}/index.ts`);
      }
      if (fromKind === "module" && toKind === "module" && !imp.typeOnly) {
        const key = `${from}>${to}`;
        if (!edges.has(key)) edges.set(key, where);
      }
    }
  }
  for (const cycle of cyclesOf(edges)) {
    const path = cycle.map((m, i) => `${m} → ${cycle[(i + 1) % cycle.length]} (${edges.get(`${m}>${cycle[(i + 1) % cycle.length]}`)})`);
    faults.push(`cycle between modules: ${path.join(", ")}`);
  }
  return faults;
}

/** One shortest cycle through each strongly connected group of modules. */
function cyclesOf(edges) {
  const next = new Map();
  for (const key of edges.keys()) {
    const [a, b] = key.split(">");
    if (!next.has(a)) next.set(a, []);
    next.get(a).push(b);
  }
  const seen = new Set();
  const cycles = [];
  for (const start of [...next.keys()].sort()) {
    if (seen.has(start)) continue;
    // Breadth-first from start back to start: the shortest cycle through it, if any.
    const prev = new Map();
    const queue = [start];
    let closed = null;
    while (queue.length && !closed) {
      const m = queue.shift();
      for (const n of next.get(m) ?? []) {
        if (n === start) { closed = m; break; }
        if (!prev.has(n)) { prev.set(n, m); queue.push(n); }
      }
    }
    if (!closed) continue;
    const cycle = [closed];
    while (cycle[0] !== start) cycle.unshift(prev.get(cycle[0]));
    cycle.forEach((m) => seen.add(m));
    cycles.push(cycle);
  }
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("check-modules.mjs")) {
  const faults = checkModules(process.argv[2] ?? "src");
  for (const f of faults) console.error(f);
  if (faults.length) {
    console.error(`check-modules: ${faults.length} fault(s); see docs/modules.md`);
    process.exit(1);
  }
}
