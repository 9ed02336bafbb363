import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backends, tempDir } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { BIN } from "../support/cli.ts";
import { exportBodiesCsv, getBody, importBodiesCsv, readBodies, recordHistory, searchBodies } from "../../src/catalogue/index.ts";
import { parseCsv, writeCsv } from "../../src/catalogue/csv.ts";
import { Forbidden, Invalid } from "../../src/core/errors.ts";
import { as, investigator } from "../support/catalogue.ts";

test("the CSV reader: BOM, CRLF and LF, quoted delimiters, quotes and line breaks, ';' files, blank lines", () => {
  const t = parseCsv('\ufeffref,name,notes\r\n,"Doe, John","said ""hello""\r\nthen left"\r\n\r\n,أحمد,\n');
  assert.deepEqual(t.header, ["ref", "name", "notes"]);
  assert.deepEqual(
    t.records.map((r) => [r.row, r.line, r.fields]),
    [
      [2, 2, ["", "Doe, John", 'said "hello"\r\nthen left']],
      [3, 5, ["", "أحمد", ""]],
    ],
  );
  assert.equal(parseCsv("a;b\n1;2").delimiter, ";");
  assert.deepEqual(parseCsv("a;b\n1;2").records[0]!.fields, ["1", "2"]);
  assert.throws(() => parseCsv('a,b\n1,"open\n'), (e: unknown) => e instanceof Invalid && /never closed/.test(e.message));
  assert.throws(() => parseCsv('a,b\n1,x"y\n'), (e: unknown) => e instanceof Invalid && /line 2/.test(e.message));
  assert.throws(() => parseCsv('a,b\n"1"x,2\n'), /closing quote/);
  assert.throws(() => parseCsv(""), /empty/);
  const rows = [["a", "b,c", 'q"q', "line\nbreak", " pad"]];
  assert.deepEqual(parseCsv(writeCsv([["h1", "h2", "h3", "h4", "h5"], ...rows])).records[0]!.fields, rows[0]);
  assert.ok(writeCsv([["x"]], { bom: true }).startsWith("\ufeffx\r\n"));
});

const PARTNER = [
  "\ufeffref,detainee_no,branch_no,examiner_no,hospital,photo_date,sex,age_min,age_max,marks,name",
  "P-001,١٢٣٤٥,٢١٥,٣٠٤٥/ب,Tishreen,١٤/٠٣/٢٠١٢,ذكر,٢٥,٣٥,scar left forearm; tattoo right upper arm (anchor),أحمد عبد الله",
  "P-002,8812,227,,601,2012-03,male,,,,",
  'P-003,40017,235,1250,Harasta,,female,20,30,"mole:face:mole left cheek",Fatima Al-Zahra',
  ",,,,,,,,,,",
].join("\r\n");

for (const { backend, skip } of await backends()) {
  test(`import: Arabic-Indic digits, BOM, empty = unknown; one custody event per body and one for the import (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const before = await t.archive.log.size();
      const r = await importBodiesCsv(t.archive, investigator, { csv: PARTNER });
      assert.deepEqual({ ok: r.ok, rows: r.rows, created: r.created, updated: r.updated, rejected: r.rejected }, { ok: true, rows: 4, created: 4, updated: 0, rejected: [] });
      assert.equal(await t.archive.log.size(), before + 5);
      const { items } = await readBodies(t.archive, investigator);
      const [a, b, c, d] = items;
      assert.equal(a!.externalRef, "P-001");
      assert.equal(a!.detaineeNo, "١٢٣٤٥", "numbers are kept as written…");
      assert.equal(a!.detaineeNoNorm, "12345", "…beside their matching form");
      assert.equal(a!.branchNoNorm, "215");
      assert.equal(a!.examinerNoNorm, "3045/ب");
      assert.equal(a!.hospital, "tishreen");
      assert.equal(a!.photoDate, "2012-03-14");
      assert.equal(a!.photoMonth, "2012-03");
      assert.deepEqual([a!.sex, a!.ageMin, a!.ageMax], ["male", 25, 35]);
      assert.deepEqual(a!.marks, [
        { type: "scar", region: "arm_left", description: "scar left forearm" },
        { type: "tattoo", region: "arm_right", description: "tattoo right upper arm (anchor)" },
      ]);
      assert.equal(a!.nameAr, "أحمد عبد الله");
      assert.equal(a!.identificationStatus, "identified", "a named row records an identification made elsewhere");
      assert.deepEqual([b!.photoDate, b!.photoMonth, b!.ageMin, b!.nameAr, b!.nameLat, b!.identificationStatus], ["2012-03", "2012-03", null, null, null, "unidentified"]);
      assert.deepEqual(c!.marks, [{ type: "mole", region: "face", description: "mole left cheek" }]);
      assert.equal(c!.nameLat, "Fatima Al-Zahra");
      assert.equal(d!.externalRef, null, "an empty row is a body with nothing known");
      const full = await getBody(t.archive, investigator, a!.id);
      assert.deepEqual(full.numbers.map((n) => [n.role, n.method, n.enteredBy, n.checkedBy, n.origin]), [
        ["detainee", "typed", investigator.id, null, `csv:${r.importId}`],
        ["branch", "typed", investigator.id, null, `csv:${r.importId}`],
        ["examiner", "typed", investigator.id, null, `csv:${r.importId}`],
      ]);
      assert.equal((await searchBodies(t.archive, investigator, { q: "احمد 12345" })).total, 1);
      const events = (await t.archive.log.eventsFor(r.importId)).map((e) => e.event);
      assert.equal(events.length, 1);
      assert.deepEqual([events[0]!.detail.sha256, events[0]!.detail.created], [r.sha256, 4]);

      // The same file again updates nothing: the partner's references find their bodies.
      const again = await importBodiesCsv(t.archive, investigator, { csv: PARTNER });
      assert.deepEqual([again.created, again.updated, again.unchanged], [1, 0, 3], "the reference-less row is new each time");
    } finally {
      await t.close();
    }
  });

  test(`import is all or nothing and reports every rejected row with its column and why (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const bad = [
        "ref,detainee_no,branch_no,examiner_no,hospital,photo_date,sex,age_min,age_max,marks,name",
        "P-1,1234,215,,601,2012-03-14,male,20,30,,",
        "P-2,abc,215,,601,2012-03-14,male,20,30,,",
        "P-3,1235,215,,Mayo Clinic,2012-02-30,unknown,40,30,,",
        "P-4,1236,215,,601,2012-03-14,male,20,30,tattoo:elbow:x,",
        "P-1,1237,215,,601,2012-03-14,male,20,30,,",
        "B-000099,1238,215,,601,2012-03-14,male,20,30,,",
        "P-7,1239,215",
        "P-8,1240,215,,601,spring 2012,m,20,30,,",
      ].join("\n");
      const before = await t.archive.log.size();
      const r = await importBodiesCsv(t.archive, investigator, { csv: bad });
      assert.equal(r.ok, false);
      assert.deepEqual([r.created, r.updated], [0, 0]);
      const got = r.rejected.map((x) => [x.row, x.column]);
      assert.deepEqual(got, [
        [3, "detainee_no"],
        [4, "hospital"],
        [4, "photo_date"],
        [4, "sex"],
        [4, "age_min"],
        [5, "marks"],
        [6, "ref"],
        [7, "ref"],
        [8, null],
        [9, "photo_date"],
      ]);
      const msg = (row: number, col: string | null) => r.rejected.find((x) => x.row === row && x.column === col)!.message;
      assert.match(msg(3, "detainee_no"), /must contain digits/);
      assert.match(msg(4, "hospital"), /"Mayo Clinic" is not in the hospital vocabulary/);
      assert.match(msg(4, "photo_date"), /not a date in the calendar/);
      assert.match(msg(4, "sex"), /male or female/);
      assert.match(msg(4, "age_min"), /above age_max/);
      assert.match(msg(5, "marks"), /"x" is not a kind of mark|"elbow" is not a body region/);
      assert.match(msg(6, "ref"), /same body as row 2/);
      assert.match(msg(7, "ref"), /no body B-000099/);
      assert.match(msg(8, null), /3 fields where the header has 11/);
      assert.match(msg(9, "photo_date"), /not a range or a season/);
      assert.equal(await t.archive.log.size(), before, "no event: nothing happened");
      assert.equal((await readBodies(t.archive, investigator)).items.length, 0, "no body: nothing half-imported");

      await assert.rejects(importBodiesCsv(t.archive, investigator, { csv: "ref,favourite colour\n1,blue\n" }), (e: unknown) => e instanceof Invalid && /"favourite colour"/.test(e.message));
      await assert.rejects(importBodiesCsv(t.archive, as("forensic_reviewer"), { csv: PARTNER }), (e: unknown) => e instanceof Forbidden && /catalogue\.import/.test(e.message));
      const dry = await importBodiesCsv(t.archive, investigator, { csv: PARTNER, dryRun: true });
      assert.deepEqual([dry.ok, dry.created], [true, 4]);
      assert.equal((await readBodies(t.archive, investigator)).items.length, 0, "a dry run writes nothing");
    } finally {
      await t.close();
    }
  });

  test(`export → import into another archive → export gives the same file; an edited export updates with history (${backend.name})`, { skip }, async () => {
    const [a, b] = [await freshArchive(backend), await freshArchive(backend)];
    try {
      await importBodiesCsv(a.archive, investigator, { csv: PARTNER });
      const notes = "=HYPERLINK(\"http://example.org\")";
      const first = (await readBodies(a.archive, investigator)).items[0]!;
      const { editBody } = await import("../../src/catalogue/index.ts");
      await editBody(a.archive, investigator, { id: first.id, notes, clothing: "قميص، أزرق\nمخطط", deathDate: "2012-03/2012-04", injuries: ["burn_cigarette", "emaciation"] });
      const e1 = await exportBodiesCsv(a.archive, investigator);
      assert.equal(e1.rows, 4);
      assert.ok(e1.csv.startsWith("\ufeffref,external_ref,detainee_no,branch_no,examiner_no,hospital,photo_date,"));
      assert.ok(e1.csv.includes(`"'=HYPERLINK(""http://example.org"")"`), "a formula is exported inert");
      const exportEvent = (await a.archive.log.eventsFor(first.id)).map((e) => e.event).find((e) => e.type === "export")!;
      assert.equal(exportEvent.detail.sha256, e1.sha256);

      const r = await importBodiesCsv(b.archive, investigator, { csv: e1.csv.replace(/B-0000\d\d,/g, ",") });
      assert.deepEqual([r.ok, r.created, r.ignoredColumns], [true, 4, ["id", "review_status", "review_findings", "photos", "source", "updated_at"]]);
      const e2 = await exportBodiesCsv(b.archive, investigator);
      const VOLATILE = new Set(["id", "updated_at"]);
      const strip = (csv: string) => {
        const t = parseCsv(csv);
        return t.records.map((x) => x.fields.filter((_, i) => !VOLATILE.has(t.header[i]!)));
      };
      assert.deepEqual(strip(e2.csv), strip(e1.csv));
      const imported = (await readBodies(b.archive, investigator)).items[0]!;
      assert.equal(imported.notes, notes, "the apostrophe came off on the way in");
      assert.equal(imported.clothing, "قميص، أزرق\nمخطط");

      // Same archive: unchanged rows are left alone; an edited row is an update with its history.
      assert.deepEqual((await importBodiesCsv(a.archive, investigator, { csv: e1.csv })).unchanged, 4);
      const edited = e1.csv.replace("P-002,8812,227", "P-002,8813,227");
      const u = await importBodiesCsv(a.archive, investigator, { csv: edited });
      assert.deepEqual([u.updated, u.unchanged], [1, 3]);
      const p2 = (await readBodies(a.archive, investigator)).items.find((x) => x.externalRef === "P-002")!;
      assert.equal(p2.detaineeNo, "8813");
      const h = await recordHistory(a.archive, investigator, p2.id);
      assert.deepEqual(h.filter((x) => x.field === "detaineeNo").map((x) => [x.old, x.new]), [[null, "8812"], ["8812", "8813"]]);
      assert.deepEqual((await getBody(a.archive, investigator, p2.id)).numbers.filter((n) => n.role === "detainee").map((n) => n.value), ["8812", "8813"], "the old number stays on record");
    } finally {
      await a.close();
      await b.close();
    }
  });
}

const [sqliteLeg] = await backends();
test("dalil catalogue import / search / export from the command line", { skip: sqliteLeg!.skip, timeout: 60_000 }, () => {
  const dir = tempDir();
  const data = join(dir, "data");
  const file = join(dir, "partner.csv");
  writeFileSync(file, PARTNER);
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, "--data", data, ...args], { encoding: "utf8", env: { ...process.env, DALIL_DATABASE_URL: "" } });
  assert.equal(run("init").status, 0, "only init creates the archive");
  const imp = run("catalogue", "import", file);
  assert.equal(imp.status, 0, imp.stderr);
  assert.match(imp.stdout, /4 rows — 4 created/);
  const s = run("--json", "search", "احمد", "--facet", "branch=215");
  assert.equal(s.status, 0, s.stderr);
  const res = JSON.parse(s.stdout) as { total: number; items: { externalRef: string }[] };
  assert.deepEqual([res.total, res.items[0]!.externalRef], [1, "P-001"]);
  const out = join(dir, "out.csv");
  const ex = run("catalogue", "export", out);
  assert.equal(ex.status, 0, ex.stderr);
  assert.equal(parseCsv(readFileSync(out, "utf8")).records.length, 4);
  writeFileSync(file, "ref,sex\nP-9,maybe\n");
  const badImp = run("catalogue", "import", file);
  assert.equal(badImp.status, 2);
  assert.match(badImp.stdout, /nothing imported: 1 problem\(s\)[\s\S]*row 2, sex: "maybe"/);
});
