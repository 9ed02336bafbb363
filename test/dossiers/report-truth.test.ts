import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { addNumber, checkNumber, getBody } from "../../src/catalogue/index.ts";
import { buildReport } from "../../src/dossiers/report/index.ts";
import { catalogueDemoCard } from "../../src/dossiers/report/demo.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { norm, pdfText, reportRoot, skipBrowser } from "../support/report-pdf.ts";
import { readyUser } from "../support/accounts.ts";

/**
 * The report states only what the records show: a number is "checked by a second person" only when someone
 * checked it, and then by whom; an unchecked number is marked so where it is printed; the method section counts
 * this report's numbers; statistics count ٢٤٨ and 248 as one branch; the preparer is a person, not an id; and the
 * Arabic report has no English words.
 */
const operator = operatorActor();
const root = reportRoot("dalil-report-truth-");
if (!process.env.DALIL_KEEP_REPORT) process.on("exit", () => rmSync(root, { recursive: true, force: true }));

/** Latin words in the Arabic report that are names of standards, tools, formats or records, not English. */
const NOT_ENGLISH = /^(SHA-?256|RFC|C2SP|Ed25519|JPEG|EXIF|base64|sha256sum|tlog-proof|B-\d+|E-\d+|[0-9a-f]{8,}|\S+@\S+|\S*\.\S*|\w+_\w+|[A-Za-z0-9+/=]{20,})$/;

function rawText(pdf: string): string {
  const r = spawnSync("pdftotext", ["-enc", "UTF-8", pdf, "-"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

for (const { backend, skip } of await backends()) {
  test(`a report says which numbers a second person checked, and who, and marks the others (${backend.name})`, { skip: skip || skipBrowser, timeout: 600_000 }, async () => {
    const { dir, truth } = await demoCard(2, false, "truth");
    const a = await freshArchive(backend);
    try {
      await ingestCard(a.archive, operator, { path: dir, label: "card" });
      const bodies = await catalogueDemoCard(a.archive, operator, truth);
      const checker = await readyUser(a.archive, "archivist", "checker@example.org");
      const preparer = await readyUser(a.archive, "investigator", "preparer@example.org");
      // Body 1: branch 248 in Latin digits, every number checked. Body 2: branch ٢٤٨, nothing checked.
      await addNumber(a.archive, operator, { bodyId: bodies[0]!.bodyId, role: "branch", value: "248" });
      await addNumber(a.archive, operator, { bodyId: bodies[1]!.bodyId, role: "branch", value: "٢٤٨" });
      const first = await getBody(a.archive, operator, bodies[0]!.bodyId);
      for (const n of first.numbers.filter((x) => !x.retired)) await checkNumber(a.archive, checker.actor, { numberId: n.id, agree: true });
      const exhibits = bodies.map((b, i) => ({ number: `E-${i + 1}`, bodyId: b.bodyId }));

      const en = await buildReport(a.archive, preparer.actor, { title: "Truth", lang: "en", clearance: "blurred", exhibits, outDir: join(root, `${backend.name}-en`) });
      const etext = pdfText(en.pdf);
      const checkedOn = first.numbers.length ? (await getBody(a.archive, operator, bodies[0]!.bodyId)).numbers.find((n) => n.checkedAt)!.checkedAt!.slice(0, 10) : "";
      assert.ok(etext.includes(norm(`checked by a second person, checker@example.org (archivist), on ${checkedOn}`)), "the checker is named with the day");
      assert.ok(etext.includes(norm("not checked by a second person")), "the unchecked numbers are marked");
      assert.ok(etext.includes(norm("The body exhibits in this report carry 6 numbers")), "the method counts this report's numbers");
      assert.ok(etext.includes(norm("3 of them were checked by a second person")));
      assert.ok(etext.includes(norm("3 were not")));
      assert.doesNotMatch(etext, /eachnumbertranscribedandcheckedbyasecondperson/i, "no fixed claim of a check");
      assert.ok(etext.includes(norm("Prepared by preparer@example.org (investigator)")), "the preparer is a person");
      assert.doesNotMatch(etext, /usr_/, "no account ids");
      // Each exhibit page says so of its own numbers: the first one checked, the second one not.
      // (The contents name each exhibit too: a section starts at the last mention of its heading.)
      const e1 = etext.lastIndexOf(norm("Exhibit E-1"));
      const e2 = etext.lastIndexOf(norm("Exhibit E-2"));
      const annex = etext.lastIndexOf(norm("Annex A"));
      assert.ok(e1 > 0 && e2 > e1 && annex > e2);
      assert.equal(etext.slice(e1, e2).split(norm("checked by a second person, checker@example.org")).length - 1, 3, "E-1: all three numbers checked");
      assert.ok(!etext.slice(e1, e2).includes(norm("not checked")));
      assert.equal(etext.slice(e2, annex).split(norm("not checked by a second person")).length - 1, 3, "E-2: all three marked unchecked");
      // ٢٤٨ and 248 are one branch in the statistics: one bar of 2.
      const stats = etext.slice(etext.indexOf(norm("By branch number")), etext.indexOf(norm("By facility")));
      assert.match(stats, /^Bybranchnumber\D*248\D*2$/, "one bar, for branch 248, counting 2");

      const ar = await buildReport(a.archive, preparer.actor, { title: "الحقيقة", lang: "ar", clearance: "blurred", exhibits, outDir: join(root, `${backend.name}-ar`) });
      const atext = pdfText(ar.pdf);
      assert.ok(atext.includes(norm("لم يتحقق منه شخص ثانٍ")));
      // Poppler orders the runs of a mixed line its own way: the address and the role are looked for on one line.
      const lines = rawText(ar.pdf).split("\n");
      assert.ok(lines.some((l) => l.includes("checker@example.org") && norm(l).includes(norm("أمين الأرشيف")) && norm(l).includes(norm("تحقق منه شخص ثانٍ"))), "the checker, named in Arabic");
      assert.ok(lines.some((l) => l.includes("preparer@example.org") && norm(l).includes(norm("محقق"))), "the preparer, named in Arabic");
      const english = (rawText(ar.pdf).match(/[A-Za-z][A-Za-z0-9_.@+/=-]*/g) ?? []).filter((word) => !NOT_ENGLISH.test(word));
      assert.deepEqual([...new Set(english)], [], "no English words in the Arabic report");
    } finally {
      await a.close();
    }
  });
}
