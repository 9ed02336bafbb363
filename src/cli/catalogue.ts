import { readFileSync, statSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import {
  acceptProposals,
  addNumber,
  addVocabularyTerm,
  checkNumber,
  editBody,
  exportBodiesCsv,
  FACETS,
  getBody,
  importBodiesCsv,
  importBodyDocuments,
  type DocumentsImportReport,
  listProposals,
  listVocabulary,
  mergeBodies,
  NUMBER_ROLES,
  proposeGroupings,
  recordHistory,
  rejectProposal,
  runProposals,
  searchBodies,
  SORTS,
  splitBody,
  EDITABLE_FIELDS,
  type BodyDetail,
  type BodyPatch,
  type FacetName,
  type ImportReport,
  type NumberRole,
  type ProposalStatus,
  type SearchQuery,
  type SearchResult,
  type SortKey,
} from "../catalogue/index.ts";
import { globalOptions, positiveIntOption, print, progressBar, rowProblemLines, underFlags, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/**
 * `dalil search …` and `dalil catalogue …`: the catalogue from the server's shell. Whoever runs these holds the
 * data directory, so they act as the operator (an administrator); every change is recorded under that name.
 */
function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

function parseFacets(list: string[]): Partial<Record<FacetName, string[]>> {
  const out: Partial<Record<FacetName, string[]>> = {};
  for (const f of list) {
    const m = /^([a-z]+)=(.+)$/.exec(f);
    if (!m || !(FACETS as readonly string[]).includes(m[1]!)) {
      throw new Invalid(say("cli.facetOption", { names: FACETS.join(", "), value: f }), "--facet");
    }
    const name = m[1] as FacetName;
    out[name] = [...(out[name] ?? []), ...m[2]!.split(",")];
  }
  return out;
}

function searchText(r: SearchResult, showFacets: boolean): string {
  const lines = [`${r.total} bodies${r.tokens.length ? ` for ${r.tokens.join(" ")}` : ""}`];
  for (const h of r.items) {
    const nums = [h.detaineeNo && `detainee ${h.detaineeNo}`, h.branchNo && `branch ${h.branchNo}`, h.examinerNo && `examiner ${h.examinerNo}`].filter(Boolean).join(", ");
    const name = h.nameAr ?? h.nameLat;
    lines.push(`  ${h.ref}  ${h.photoDate ?? "date unknown"}  ${h.hospital ?? "-"}  ${nums}${name ? `  ${name}` : ""}  (${h.photos} photos)`);
  }
  if (r.next) lines.push(`more: --after ${r.next}`);
  if (showFacets) {
    for (const [name, buckets] of Object.entries(r.facets)) {
      if (!buckets?.length) continue;
      lines.push(`${name}: ${buckets.map((b) => `${b.value ?? "unknown"} (${b.count})`).join(", ")}`);
    }
  }
  return lines.join("\n");
}

function bodyText(b: BodyDetail): string {
  const lines = [
    `${b.ref}  ${b.id}${b.mergedInto ? `  (merged into ${b.mergedInto})` : ""}`,
    `  numbers: detainee ${b.detaineeNo ?? "?"}, branch ${b.branchNo ?? "?"}, examiner ${b.examinerNo ?? "?"}`,
    `  hospital ${b.hospital ?? "?"}, photo date ${b.photoDate ?? "?"}, death ${b.deathDate?.text ?? "?"}`,
    `  sex ${b.sex ?? "?"}, apparent age ${b.ageMin ?? "?"}–${b.ageMax ?? "?"}`,
    `  identification ${b.identificationStatus}${b.nameAr || b.nameLat ? `: ${[b.nameAr, b.nameLat].filter(Boolean).join(" / ")}` : ""}; review ${b.reviewStatus}`,
  ];
  if (b.marks.length) lines.push(`  marks: ${b.marks.map((m) => `${m.type}${m.region ? ` (${m.region})` : ""}: ${m.description}${m.source === "review" ? " [review]" : ""}`).join("; ")}`);
  if (b.clothing) lines.push(`  clothing: ${b.clothing}`);
  if (b.injuries.length) lines.push(`  injuries: ${b.injuries.join(", ")}`);
  if (b.notes) lines.push(`  notes: ${b.notes}`);
  for (const n of b.numbers) {
    lines.push(
      `  ${n.id} ${n.role} ${n.value} (${n.method}${n.confidence !== null ? ` ${n.confidence.toFixed(2)}` : ""}${n.checkedBy ? `, checked by ${n.checkedBy}` : ", unchecked"}${n.retired ? `, retired: ${n.retired.reason}` : ""})`,
    );
  }
  for (const d of b.documents) lines.push(`  document: ${d.kind} ${d.value} (${d.source}, row ${d.row})`);
  for (const p of b.photos) lines.push(`  photo ${p.position} ${p.role.padEnd(6)} ${p.sha256}`);
  return lines.join("\n");
}

function documentsReportText(r: DocumentsImportReport, source: string): string {
  const head = r.ok
    ? `${r.dryRun ? "checked (nothing written)" : "attached"}: ${r.attached} fact(s) from "${source}" to ${r.bodies} bod${r.bodies === 1 ? "y" : "ies"} (${r.rows} rows; ${r.alreadyAttached} already attached)`
    : `nothing attached: ${r.rejected.length} problem(s) in ${r.rows} rows`;
  return [head, ...rowProblemLines(r.rejected)].join("\n");
}

function reportText(r: ImportReport): string {
  const head = r.ok
    ? `${r.dryRun ? "checked (nothing written)" : "imported"}: ${r.rows} rows — ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged`
    : `nothing imported: ${r.rejected.length} problem(s) in ${r.rows} rows`;
  const lines = [head, ...rowProblemLines(r.rejected)];
  if (r.ignoredColumns.length) lines.push(`ignored (export-only) columns: ${r.ignoredColumns.join(", ")}`);
  return lines.join("\n");
}

/** `--set field=value`: JSON for lists and numbers, the text otherwise; an empty value clears the field. */
function parseSets(list: string[]): BodyPatch {
  const patch: Record<string, unknown> = {};
  for (const s of list) {
    const i = s.indexOf("=");
    const field = i > 0 ? s.slice(0, i) : "";
    if (!(EDITABLE_FIELDS as readonly string[]).includes(field)) {
      throw new Invalid(say("cli.setOption", { fields: EDITABLE_FIELDS.join(", "), value: s }), "--set");
    }
    const raw = s.slice(i + 1);
    if (raw === "") patch[field] = field === "marks" || field === "injuries" ? [] : null;
    else if (field === "marks" || field === "injuries") patch[field] = field === "injuries" && !raw.startsWith("[") ? raw.split(",").map((x) => x.trim()) : (JSON.parse(raw) as unknown);
    else if (field === "ageMin" || field === "ageMax") patch[field] = Number(raw);
    else patch[field] = raw;
  }
  return patch as BodyPatch;
}

export function registerCatalogueCommands(program: Command): void {
  program
    .command("search")
    .description("search bodies: numbers, names (Arabic or Latin), notes, marks; --facet NAME=VALUE to filter")
    .argument("[query...]", "words to find (all must match; end the last with * for a prefix)")
    .option("--facet <name=value>", `filter (repeatable): ${FACETS.join(", ")}`, collect, [])
    .option("--sort <key>", SORTS.join(" | "), "ref")
    .option("--limit <n>", "results per page", positiveIntOption("--limit"), 50)
    .option("--after <cursor>", "the next page (printed under the results)")
    .option("--no-facets", "leave out the facet counts")
    .action(async (words: string[], o: { facet: string[]; sort: string; limit: number; after?: string; facets: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const query: SearchQuery = { q: words.join(" "), ...parseFacets(o.facet), sort: o.sort as SortKey, limit: o.limit, after: o.after, facets: o.facets };
      await withArchive(opts, async (a) => {
        const r = await underFlags({ sort: "--sort", limit: "--limit", after: "--after" }, () => searchBodies(a, operatorActor(), query));
        print(opts, r, searchText(r, o.facets));
      });
    });

  const cat = program.command("catalogue").description("bodies, numbers, grouping proposals, vocabularies, CSV import and export");

  cat
    .command("import")
    .description("import bodies from a CSV file (all or nothing; every rejected row is reported)")
    .argument("<file>", "the CSV file (UTF-8, with or without BOM); columns in docs/catalogue-csv.md")
    .option("--dry-run", "check every row and report, write nothing")
    .action(async (file: string, o: { dryRun?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const csv = readFileSync(file, "utf8");
      await withArchive(opts, async (a) => {
        const r = await importBodiesCsv(a, operatorActor(), { csv, dryRun: Boolean(o.dryRun) });
        print(opts, r, reportText(r));
        if (!r.ok) process.exitCode = 2;
      });
    });

  cat
    .command("documents")
    .description("numbers and names read from documents (detention papers, a hospital register), attached to bodies with their source")
    .command("import")
    .description("attach the numbers and names of a CSV file to the bodies its rows name (all or nothing; every refused row is reported)")
    .argument("<file>", "the CSV file (UTF-8, with or without BOM); columns in docs/catalogue-documents.md")
    .requiredOption("--source <name>", "the document or register the rows were read from, as it should be cited (\"Register 601\")")
    .option("--dry-run", "check every row and report, write nothing")
    .action(async (file: string, o: { source: string; dryRun?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      if (statSync(file).size > 50 * 1024 * 1024) throw new Invalid(say("cli.fileTooLarge", { file, mb: 50 }), "file");
      const csv = readFileSync(file, "utf8");
      await withArchive(opts, async (a) => {
        const r = await importBodyDocuments(a, operatorActor(), { csv, source: o.source, dryRun: Boolean(o.dryRun) });
        print(opts, r, documentsReportText(r, o.source));
        if (!r.ok) process.exitCode = 2;
      });
    });

  cat
    .command("export")
    .description("export every body as CSV (to FILE, or to standard output)")
    .argument("[file]", "where to write; standard output when absent")
    .option("--no-bom", "leave out the byte-order mark (spreadsheets need it to read UTF-8 as such)")
    .action(async (file: string | undefined, o: { bom: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await exportBodiesCsv(a, operatorActor(), { bom: o.bom });
        if (file) {
          writeFileSync(file, r.csv, { mode: 0o600 });
          print(opts, { file, rows: r.rows, sha256: r.sha256 }, `wrote ${r.rows} bodies to ${file} (sha256 ${r.sha256})`);
        } else {
          process.stdout.write(r.csv);
        }
      });
    });

  cat
    .command("propose")
    .description("read the cards of a source's photos and propose bodies")
    .argument("<source>", "the source id (see `dalil ingest` output or /api/sources)")
    .option("--queue", "queue it as a job for a worker instead of running it here")
    .action(async (source: string, o: { queue?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        if (o.queue) {
          const r = await proposeGroupings(a, operatorActor(), { sourceId: source });
          print(opts, r, `queued ${r.jobId}`);
          return;
        }
        const bar = progressBar("propose");
        const r = await runProposals(a, operatorActor(), { sourceId: source, onProgress: (d, t, n) => bar.update(d, t, n) });
        bar.end();
        print(opts, r, `${r.photos} photos read (${r.readings} numbers): ${r.proposals} proposals${r.superseded ? `, ${r.superseded} earlier ones superseded` : ""}`);
      });
    });

  cat
    .command("proposals")
    .description("list a source's grouping proposals")
    .argument("<source>", "the source id")
    .option("--status <status>", "proposed | accepted | split | merged | rejected", "proposed")
    .option("--limit <n>", "how many", positiveIntOption("--limit"), 100)
    .action(async (source: string, o: { status: string; limit: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await listProposals(a, operatorActor(), { sourceId: source, status: o.status as ProposalStatus, limit: o.limit });
        print(
          opts,
          r,
          r.items
            .map((p) => `${p.id}  #${p.position}  ${p.photos.length} photos  ${p.numbers.map((n) => `${n.role} ${n.value}`).join(", ") || "no numbers"}  score ${p.score ?? "-"}`)
            .join("\n") || "no proposals",
        );
      });
    });

  cat
    .command("accept")
    .description("accept grouping proposals: a body each, with its photos and numbers")
    .argument("<proposal...>", "proposal ids")
    .action(async (ids: string[], _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await acceptProposals(a, operatorActor(), { proposalIds: ids });
        print(opts, r, `${r.bodies.length} bodies created`);
      });
    });

  cat
    .command("reject")
    .argument("<proposal>", "proposal id")
    .option("--reason <text>", "why")
    .action(async (id: string, o: { reason?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => print(opts, await rejectProposal(a, operatorActor(), { proposalId: id, reason: o.reason }), `rejected ${id}`));
    });

  cat
    .command("show")
    .description("one body with its numbers and photos (references only)")
    .argument("<body>", "id or reference (B-000123)")
    .action(async (ref: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const b = await getBody(a, operatorActor(), ref);
        print(opts, b, bodyText(b));
      });
    });

  cat
    .command("history")
    .description("every change to a body: field, old value, new value, who, when")
    .argument("<body>", "id or reference (B-000123)")
    .action(async (ref: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const b = await getBody(a, operatorActor(), ref);
        const h = await recordHistory(a, operatorActor(), b.id);
        print(opts, h, h.map((e) => `${e.at}  ${e.actor}  ${e.field}: ${JSON.stringify(e.old)} → ${JSON.stringify(e.new)}  (event ${e.eventSeq})`).join("\n") || "no changes");
      });
    });

  cat
    .command("edit")
    .description("change a body's fields: --set FIELD=VALUE (repeatable; empty VALUE clears)")
    .argument("<body>", "id or reference (B-000123)")
    .option("--set <field=value>", `one of ${EDITABLE_FIELDS.join(", ")}`, collect, [])
    .action(async (ref: string, o: { set: string[] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const b = await getBody(a, operatorActor(), ref);
        const r = await editBody(a, operatorActor(), { id: b.id, version: b.version, ...parseSets(o.set) });
        print(opts, r, `${r.ref} now at version ${r.version}`);
      });
    });

  cat
    .command("merge")
    .description("merge two records of one person (the absorbed one stays on file, pointing to the kept one)")
    .argument("<keep>", "id or reference")
    .argument("<absorb>", "id or reference")
    .option("--reason <text>", "why")
    .action(async (keep: string, absorb: string, o: { reason?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await mergeBodies(a, operatorActor(), { keep, absorb, reason: o.reason });
        print(opts, r, `${r.body.ref}: ${r.body.photos.length} photos${r.conflicts.length ? `; differing fields kept as they were: ${r.conflicts.map((c) => c.field).join(", ")}` : ""}`);
      });
    });

  cat
    .command("split")
    .description("move some of a body's photos to a new body")
    .argument("<body>", "id or reference")
    .argument("<sha256...>", "the photos that show someone else")
    .action(async (ref: string, photos: string[], _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const b = await getBody(a, operatorActor(), ref);
        const r = await splitBody(a, operatorActor(), { bodyId: b.id, photos });
        print(opts, r, `${r.created.ref} created with ${r.created.photos.length} photos; ${r.from.ref} keeps ${r.from.photos.length}`);
      });
    });

  const num = cat.command("number").description("numbers on a body: add (typed), check (second person)");
  num
    .command("add")
    .argument("<body>", "id or reference")
    .argument("<role>", NUMBER_ROLES.join(" | "))
    .argument("<value>", "as written (Arabic-Indic digits are fine)")
    .option("--photo <sha256>", "the photo it was read from")
    .action(async (ref: string, role: string, value: string, o: { photo?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const b = await getBody(a, operatorActor(), ref);
        const n = await addNumber(a, operatorActor(), { bodyId: b.id, role: role as NumberRole, value, sourceSha256: o.photo ?? null });
        print(opts, n, `${n.id}: ${n.role} ${n.value} (awaits a second person's check)`);
      });
    });
  num
    .command("check")
    .argument("<number>", "number id (num_…)")
    .option("--correct <value>", "what you read instead (the old number is retired)")
    .action(async (id: string, o: { correct?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const n = await checkNumber(a, operatorActor(), { numberId: id, agree: o.correct === undefined, correctedValue: o.correct });
        print(opts, n, o.correct === undefined ? `${n.id} checked` : `${id} retired; ${n.id} (${n.value}) awaits a check`);
      });
    });

  const vocab = cat.command("vocab").description("controlled vocabularies (bilingual)");
  vocab
    .command("list")
    .argument("[vocabulary]", "branch, hospital, governorate, finding, mark_type, body_region, link_type, photo_role")
    .action(async (name: string | undefined, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const terms = await listVocabulary(a, operatorActor(), { vocabulary: name });
        print(opts, terms, terms.map((t) => `${t.vocabulary.padEnd(12)} ${t.code.padEnd(18)} ${t.labelEn} — ${t.labelAr}`).join("\n"));
      });
    });
  vocab
    .command("add")
    .argument("<vocabulary>", "which vocabulary")
    .argument("<code>", "a stable code")
    .requiredOption("--ar <label>", "Arabic label")
    .requiredOption("--en <label>", "English label")
    .option("--parent <code>", "the broader term")
    .action(async (name: string, code: string, o: { ar: string; en: string; parent?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const t = await addVocabularyTerm(a, operatorActor(), { vocabulary: name, code, labelAr: o.ar, labelEn: o.en, parent: o.parent ?? null });
        print(opts, t, `added ${t.vocabulary}:${t.code}`);
      });
    });
}
