import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { cliArchiveWithBodies, dalil } from "../support/cli.ts";

/**
 * `dalil families decide` names the report and the body as a person reads them, by reference (the import's
 * AM-1, the archive's B-000002), or by id: issue 19 found "B-000004 is not a candidate" where the same body by
 * id was one. A confirmed decision then shows on the body in the catalogue.
 */
for (const { backend, skip } of await backends()) {
  test(`dalil families decide takes the report and the body by reference or id; confirmed identifies the body (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const fresh = await backend.fresh();
    try {
      const { d, env } = await cliArchiveWithBodies(fresh, ["external_ref,detainee_no,photo_date,sex", "P-1,4417,2012-09-03,male", "P-2,5120,2012-10-01,male"]);
      const reports = join(fresh.dataDir, "reports.csv");
      writeFileSync(reports, ["ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks,detainee_no", "AM-1,محمد أحمد الخطيب,,,,M,1985,2012-05,,,,4417"].join("\n"));
      const fam = await dalil([...d, "families", "import", reports], env);
      assert.equal(fam.code, 0, fam.stderr + fam.stdout);
      const match = await dalil([...d, "--json", "families", "match"], env);
      assert.equal(match.code, 0, match.stderr);
      const ranked = JSON.parse(match.stdout) as { ref: string; candidates: { ref: string; externalRef: string | null }[] }[];
      assert.deepEqual(ranked[0]!.candidates.map((c) => `${c.ref} ${c.externalRef}`).sort(), ["B-000001 P-1", "B-000002 P-2"], "the archive's reference and the spreadsheet's");

      const byRef = await dalil([...d, "families", "decide", "AM-1", "B-000002", "probable", "--reason", "a second look"], env);
      assert.equal(byRef.code, 0, byRef.stderr);
      assert.equal(byRef.stdout.trim(), "AM-1 × B-000002: probable");
      const confirmed = await dalil([...d, "families", "decide", "AM-1", "B-000001", "confirmed", "--reason", "the detainee number"], env);
      assert.equal(confirmed.code, 0, confirmed.stderr);
      assert.match(confirmed.stdout, /^AM-1 × B-000001: confirmed \(the body is identified in the catalogue\)\n$/);
      const body = await dalil([...d, "--json", "catalogue", "show", "B-000001"], env);
      assert.equal(body.code, 0, body.stderr);
      const shown = JSON.parse(body.stdout) as { identificationStatus: string; identifications: { reportRef: string }[] };
      assert.equal(shown.identificationStatus, "identified");
      assert.equal(shown.identifications[0]!.reportRef, "AM-1");

      // the same person confirmed to a second body: refused with the sentence, nothing stored
      const second = await dalil([...d, "families", "decide", "AM-1", "B-000002", "confirmed", "--reason", "x"], env);
      assert.notEqual(second.code, 0);
      assert.equal(second.stderr, "dalil: Report AM-1 is already confirmed as body B-000001; a person is one body: reverse that confirmed decision first if it was wrong.\n");
      const none = await dalil([...d, "families", "decide", "AM-1", "B-000009", "probable", "--reason", "x"], env);
      assert.equal(none.stderr, "dalil: Body B-000009 is not a candidate of report AM-1.\n");
    } finally {
      await fresh.cleanup();
    }
  });
}

/** `dalil families refer | referral | referrals`: a referral needs the family's consent; a result moves the ranking. */
for (const { backend, skip } of await backends()) {
  test(`dalil families refer records a DNA referral, referral changes it, referrals lists it with its history; an exclusion moves the ranking (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const fresh = await backend.fresh();
    try {
      const { d, env } = await cliArchiveWithBodies(fresh, ["external_ref,detainee_no,photo_date,sex", "P-1,4417,2012-09-03,male", "P-2,5120,2012-10-01,male"]);
      const reports = join(fresh.dataDir, "reports.csv");
      const header = "ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks,detainee_no,consent_dna_referral";
      writeFileSync(reports, [header, "AM-1,محمد أحمد الخطيب,,,,M,1985,2012-05,,,,4417,no", "AM-2,خالد سمير النجار,,,,M,1980,2012-05,,,,,yes"].join("\n"));
      assert.equal((await dalil([...d, "families", "import", reports], env)).code, 0);

      const refused = await dalil([...d, "families", "refer", "AM-1", "--body", "B-000001"], env);
      assert.notEqual(refused.code, 0);
      assert.equal(refused.stderr, "dalil: The family of report AM-1 has not consented to a DNA referral (or withdrew it); record their consent first.\n");

      const made = await dalil([...d, "--json", "families", "refer", "AM-2", "--body", "B-000001", "--sample-from", "mother", "--lab", "Lab Q", "--lab-ref", "Q-17"], env);
      assert.equal(made.code, 0, made.stderr);
      const id = (JSON.parse(made.stdout) as { id: string }).id;
      const changed = await dalil([...d, "families", "referral", id, "--status", "result", "--result", "exclusion", "--result-on", "2026-03-01"], env);
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(changed.stdout, `${id}  AM-2 × B-000001  v2  result: exclusion (2026-03-01)  Lab Q Q-17\n`);
      const listed = await dalil([...d, "families", "referrals", "AM-2"], env);
      assert.match(listed.stdout, new RegExp(`^${id}  AM-2 × B-000001  v2  result: exclusion .*\\n    v1 \\d{4}-\\d{2}-\\d{2}  requested\\n$`));

      const match = await dalil([...d, "--json", "families", "match"], env);
      const ranked = JSON.parse(match.stdout) as { ref: string; candidates: { ref: string; band: string }[] }[];
      const am2 = ranked.find((r) => r.ref === "AM-2")!;
      assert.deepEqual(am2.candidates.map((c) => `${c.ref} ${c.band}`).at(-1), "B-000001 exclude", "the excluded body last, band exclude");
    } finally {
      await fresh.cleanup();
    }
  });
}
