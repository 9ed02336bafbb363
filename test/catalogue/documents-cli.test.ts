import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { cliArchiveWithBodies, dalil } from "../support/cli.ts";

/**
 * `dalil catalogue documents import FILE --source NAME`: a register's rows attach numbers to the bodies whose cards
 * give the same examiner and branch numbers; a refused row is named by its number and nothing is attached; then
 * `dalil families match` finds a body by a detainee number only the register gives.
 */
for (const { backend, skip } of await backends()) {
  test(`dalil catalogue documents import attaches a register's numbers, refuses by row, and families match then finds the body (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const fresh = await backend.fresh();
    try {
      const { d, env } = await cliArchiveWithBodies(fresh, ["examiner_no,branch_no,photo_date,sex", "3301,215,2012-09-03,male", "3302,215,2012-09-03,male", "3303,215,2012-09-03,male"]);

      const register = join(fresh.dataDir, "register.csv");
      writeFileSync(register, ["رقم الطبيب الشرعي,رقم الفرع,رقم المعتقل", "٣٣٠٢,٢١٥,٤٤١٧", "9999,215,5120"].join("\n"));
      const refused = await dalil([...d, "catalogue", "documents", "import", register, "--source", "Register 601"], env);
      assert.equal(refused.code, 2, refused.stderr + refused.stdout);
      assert.match(refused.stdout, /nothing attached: 1 problem\(s\) in 2 rows\n {2}row 3, examiner_no: no body's card gives examiner number 9999 with branch 215/);
      // a refused row is worded in the terminal's language, as an error is
      const arabic = await dalil([...d, "catalogue", "documents", "import", register, "--source", "Register 601"], { ...env, DALIL_LANG: "ar" });
      assert.equal(arabic.code, 2, arabic.stderr + arabic.stdout);
      assert.match(arabic.stdout, /\n {2}السطر 3، examiner_no: لا تذكر بطاقة أي جثمان رقم الطبيب الشرعي 9999 مع الفرع 215؛ سمِّ الجثمان بمرجعه\./);

      writeFileSync(register, ["رقم الطبيب الشرعي,رقم الفرع,رقم المعتقل", "٣٣٠٢,٢١٥,٤٤١٧"].join("\n"));
      const ok = await dalil([...d, "catalogue", "documents", "import", register, "--source", "Register 601"], env);
      assert.equal(ok.code, 0, ok.stderr + ok.stdout);
      assert.match(ok.stdout, /^attached: 3 fact\(s\) from "Register 601" to 1 body/);
      const show = await dalil([...d, "catalogue", "show", "B-000002"], env);
      assert.match(show.stdout, /document: detainee ٤٤١٧ \(Register 601, row 2\)/);

      const reports = join(fresh.dataDir, "reports.csv");
      writeFileSync(reports, ["ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks,detainee_no", "AM-1,محمد أحمد الخطيب,,,,M,1985,2012-05,,,,4417"].join("\n"));
      const fam = await dalil([...d, "families", "import", reports], env);
      assert.equal(fam.code, 0, fam.stderr + fam.stdout);
      const match = await dalil([...d, "--json", "families", "match"], env);
      assert.equal(match.code, 0, match.stderr);
      const ranked = JSON.parse(match.stdout) as { ref: string; candidates: { ref: string }[] }[];
      assert.equal(ranked[0]!.candidates[0]!.ref, "B-000002", "the detainee number only the register gives puts its body first");
    } finally {
      await fresh.cleanup();
    }
  });
}
