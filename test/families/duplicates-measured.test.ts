import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport } from "../../src/families/index.ts";
import { acceptDuplicate, proposeDuplicates } from "../../src/families/duplicates.ts";
import { duplicatePairs, generateSynthetic } from "../../src/families/synthetic.ts";
import { cwdb } from "../../src/families/casework-tables.ts";
import { caseworker, familyMember, fileAsFamily } from "../support/casework.ts";

// The generator's duplicates (another relative, another spelling or script, a year off) against the scan, on a
// small set whose truth is known. Precision and recall on 2,000 and 20,000 reports: `npm run bench -- duplicates`.
// That a merge keeps each family's own consent and contact, through the portal and disclosure: duplicates.test.ts.
for (const { backend, skip } of (await backends()).filter((b) => b.backend.name === "sqlite")) {
  test(`duplicates: the scan proposes every generated duplicate pair and no pair of two different people; a merge keeps each family's consent (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      // seed 2: 40 people, 20 true pairs and no namesakes (seed 3 has two men of the same three names born three
      // years apart, which the scan proposes, as a caseworker should weigh them)
      const { reports } = generateSynthetic({ bodies: 0, reports: 40, duplicates: 0.3, seed: 2 });
      const truth = duplicatePairs(reports);
      assert.ok(truth.size >= 8, `the set has duplicates (${truth.size} pairs)`);
      assert.ok(reports.some((r) => r.duplicateOf && !r.input.nameAr), "some duplicates are written only in Latin letters");
      const refOf = new Map<string, string>();
      for (const r of reports) refOf.set((await createReport(a, caseworker, r.input)).id, r.input.ref);
      const scan = await proposeDuplicates(a, caseworker, { full: true });
      const proposed = new Set(scan.proposals.map((p) => [refOf.get(p.a.id)!, refOf.get(p.b.id)!].sort().join("|")));
      const missed = [...truth].filter((p) => !proposed.has(p));
      const wrong = [...proposed].filter((p) => !truth.has(p));
      assert.deepEqual(missed, [], "recall 1: every pair of reports about one person is proposed");
      assert.deepEqual(wrong, [], "no proposal between two different people");

      // two relatives file the first generated duplicate pair, each with their own consent; the merge keeps both
      const first = reports.find((r) => r.duplicateOf)!;
      const original = reports.find((r) => r.input.ref === first.duplicateOf)!;
      const mother = await familyMember(a, "mother");
      const brother = await familyMember(a, "brother");
      const strip = ({ ref: _ref, ...input }: typeof first.input) => input;
      const r1 = await fileAsFamily(a, mother, { ...strip(original.input), consent: { viewingPhotos: false, recontact: true } });
      const r2 = await fileAsFamily(a, brother, { ...strip(first.input), consent: { viewingPhotos: true, recontact: false } });
      const again = await proposeDuplicates(a, caseworker);
      const p = again.proposals.find((x) => new Set([x.a.id, x.b.id]).has(r1.id) && new Set([x.a.id, x.b.id]).has(r2.id));
      assert.ok(p, "the relatives' two reports are proposed");
      await acceptDuplicate(a, caseworker, { id: p.id, survivor: r1.id });
      const rows = await cwdb(a.db.db).selectFrom("family_reports").select(["id", "consent", "merged_into"]).where("id", "in", [r1.id, r2.id]).execute();
      const consentOf = (id: string) => JSON.parse(rows.find((r) => r.id === id)!.consent) as Record<string, { given: boolean; by: string }>;
      assert.equal(rows.find((r) => r.id === r2.id)!.merged_into, r1.id);
      assert.equal(consentOf(r1.id).viewingPhotos?.given, false, "the mother's refusal stays on the report kept");
      assert.equal(consentOf(r1.id).recontact?.given, true);
      assert.equal(consentOf(r2.id).viewingPhotos?.given, true, "the brother's consent stays his, on his report");
      assert.equal(consentOf(r2.id).recontact?.given, false);
    } finally {
      await t.close();
    }
  });
}
