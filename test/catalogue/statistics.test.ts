import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createEntity, mergeBodies, type NewBody } from "../../src/catalogue/index.ts";
import { readStatistics, suppress, type StatBucket, type Statistics } from "../../src/catalogue/statistics.ts";
import type { Archive } from "../../src/app/context.ts";
import { Forbidden, Unauthenticated } from "../../src/core/errors.ts";
import { anonymousActor } from "../../src/access/policy.ts";
import { admin, as, investigator, seedBodies, typed } from "../support/catalogue.ts";

/**
 * The figures a report quotes, on a catalogue whose every count is known by construction: ten bodies (one
 * merged into another, one confidential), eleven photographs, two facilities and one unit.
 */
const sha = (i: number) => String(i).padStart(64, "0");

const CATALOGUE: NewBody[] = [
  // B-1 … B-4: branch 215, hospital 601
  { hospital: "601", photoDate: "2013-05-02", deathDate: "2013-04-28", numbers: [typed("branch", "215")], reviewStatus: "reviewed", reviewFindings: ["burn_cigarette", "emaciation"], photos: [{ sha256: sha(1) }, { sha256: sha(2) }] },
  { hospital: "601", photoDate: "2013-05-20", deathDate: "2013-05", numbers: [typed("branch", "215")], reviewStatus: "reviewed", reviewFindings: ["emaciation"], photos: [{ sha256: sha(3) }] },
  { hospital: "601", photoDate: "2013-06-01", deathDate: "2013", numbers: [typed("branch", "٢١٥")], reviewFindings: [], photos: [{ sha256: sha(4) }] },
  { hospital: "601", photoDate: "2013-06-09", numbers: [typed("branch", "215")], injuries: ["emaciation"], photos: [{ sha256: sha(5) }] },
  // B-5, B-6: branch 227, Tishreen
  { hospital: "Tishreen", photoDate: "2013-05-11", deathDate: "2013-05-10", numbers: [typed("branch", "227")], reviewStatus: "reviewed", reviewFindings: ["ligature"], photos: [{ sha256: sha(6) }, { sha256: sha(7) }] },
  { hospital: "tishreen", photoDate: "2013-06-30", numbers: [typed("branch", "227")], photos: [{ sha256: sha(8) }] },
  // B-7: no branch, hospital or dates of its own: it takes them from B-8 when B-8 is merged into it
  { photos: [{ sha256: sha(9) }] },
  // B-8: merged into B-7 below (its photo and number move with it)
  { hospital: "harasta", photoDate: "2014-01-01", numbers: [typed("branch", "235")], photos: [{ sha256: sha(10) }] },
  // B-9: confidential (an investigator cannot read it; an administrator can)
  { hospital: "harasta", photoDate: "2014-02-02", numbers: [typed("branch", "248")], sensitivity: "confidential", reviewStatus: "reviewed", reviewFindings: ["ligature"], photos: [{ sha256: sha(11) }] },
  // B-10: no photo, no hospital
  { photoDate: "2013-05-30", numbers: [typed("branch", "215")] },
];

async function seed(a: Archive): Promise<void> {
  const now = new Date().toISOString();
  await a.db.transaction(async (tx) => {
    await tx
      .insertInto("sources")
      .values({ id: "src_stats", label: "statistics test", kind: "folder", intake_path: "/nowhere", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: "operator:test", files: 12, ingested: 12, duplicates: 0, quarantined: 0, bytes: 0 })
      .execute();
    // Twelve originals: eleven on bodies, one quarantined (not counted as preserved).
    for (let i = 1; i <= 12; i++) {
      await tx
        .insertInto("originals")
        .values({ sha256: sha(i), size: 1000, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: i === 12 ? "quarantined" : "preserved", first_seen_at: now, first_source_id: "src_stats" })
        .execute();
    }
  });
  const rows = await seedBodies(a, admin, CATALOGUE);
  await mergeBodies(a, admin, { keep: rows[6]!.id, absorb: rows[7]!.id, reason: "same body on two cards" });
  await createEntity(a, admin, { kind: "facility", number: "215", nameAr: "فرع المداهمة" });
  await createEntity(a, admin, { kind: "facility", nameEn: "Saydnaya" });
  await createEntity(a, admin, { kind: "unit", nameEn: "a unit (not a facility)" });
}

const table = (b: StatBucket[]) => b.map((x) => [x.value, x.count]);

for (const { backend, skip } of await backends()) {
  test(`statistics count bodies, photos and facilities on a known catalogue (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seed(t.archive);
      const s: Statistics = await readStatistics(t.archive, investigator);
      assert.deepEqual(s.totals, { bodies: 8, photos: 10, originals: 11, facilities: 2, reviewed: 3 });
      assert.deepEqual(table(s.byBranch), [["215", 5], ["227", 2], ["235", 1]]);
      assert.equal(s.byBranch[0]!.labelEn, "Branch 215 (Raids / Mudāhama)");
      assert.deepEqual(table(s.byHospital), [["601", 4], ["tishreen", 2], ["harasta", 1], [null, 1]]);
      assert.equal(s.byHospital[1]!.labelAr, "مشفى تشرين العسكري");
      assert.deepEqual(table(s.byPhotoMonth), [["2013-05", 4], ["2013-06", 3], ["2014-01", 1]]);
      assert.deepEqual(table(s.byDeathMonth), [["2013-04", 1], ["2013-05", 2], ["imprecise", 1], [null, 4]]);
      // From reviews only: B-4's observed emaciation is not a review finding; B-9 is confidential.
      assert.deepEqual(table(s.byFinding), [["emaciation", 2], ["burn_cigarette", 1], ["ligature", 1]]);

      // An administrator's clearance takes in the confidential body.
      const all = await readStatistics(t.archive, admin);
      assert.deepEqual(all.totals, { bodies: 9, photos: 11, originals: 11, facilities: 2, reviewed: 4 });
      assert.deepEqual(table(all.byFinding), [["emaciation", 2], ["ligature", 2], ["burn_cigarette", 1]]);
      assert.deepEqual(table(all.byBranch), [["215", 5], ["227", 2], ["235", 1], ["248", 1]]);
    } finally {
      await t.close();
    }
  });

  test(`statistics withhold small cells on request, and one more when one alone could be worked out (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seed(t.archive);
      const s = await readStatistics(t.archive, investigator, { minCount: 3 });
      assert.equal(s.minCount, 3);
      assert.deepEqual(s.totals, { bodies: 8, photos: 10, originals: 11, facilities: null, reviewed: 3 });
      // 227 (2) and 235 (1) are under 3: both withheld, nothing more needed.
      assert.deepEqual(table(s.byBranch), [["215", 5], ["227", null], ["235", null]]);
      assert.deepEqual(table(s.byHospital), [["601", 4], ["tishreen", null], ["harasta", null], [null, null]]);
      // Only 2014-01 (1) is small: 2013-06 (3), the next smallest, is withheld with it (else 8 - 4 - 3 gives it).
      assert.deepEqual(table(s.byPhotoMonth), [["2013-05", 4], ["2013-06", null], ["2014-01", null]]);
      await assert.rejects(readStatistics(t.archive, investigator, { minCount: 1000 }), /minCount/);
    } finally {
      await t.close();
    }
  });

  test(`statistics are for the catalogue's readers only (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await assert.rejects(readStatistics(t.archive, as("curator")), Forbidden);
      await assert.rejects(readStatistics(t.archive, as("family_member")), Forbidden);
      await assert.rejects(readStatistics(t.archive, anonymousActor), (e: unknown) => e instanceof Unauthenticated || e instanceof Forbidden);
      const empty = await readStatistics(t.archive, as("prosecutor"));
      assert.deepEqual(empty.totals, { bodies: 0, photos: 0, originals: 0, facilities: 0, reviewed: 0 });
      assert.deepEqual(empty.byBranch, []);
    } finally {
      await t.close();
    }
  });
}

test("suppression: nothing withheld at k = 0; a lone small cell takes the next smallest with it", () => {
  const cells = (...n: number[]) => n.map((count, i) => ({ value: String(i), count }));
  assert.deepEqual(suppress(cells(5, 1, 9), 0), [5, 1, 9]);
  assert.deepEqual(suppress(cells(5, 1, 9), 3), [null, null, 9]);
  assert.deepEqual(suppress(cells(5, 1, 2), 3), [5, null, null]);
  assert.deepEqual(suppress(cells(1), 3), [null]);
  assert.deepEqual(suppress(cells(4, 0), 3), [4, 0]);
});
