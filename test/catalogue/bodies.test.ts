import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import {
  addNumber,
  addVocabularyTerm,
  checkNumber,
  editBody,
  getBody,
  linksOf,
  createEntity,
  createLink,
  mergeBodies,
  readBodies,
  recordHistory,
  retireNumber,
  searchBodies,
  splitBody,
  updateBodyInTx,
  updateVocabularyTerm,
  verifyHistory,
} from "../../src/catalogue/index.ts";
import { cdb } from "../../src/catalogue/tables.ts";
import { Conflict, Forbidden, Invalid, Unauthenticated } from "../../src/core/errors.ts";
import { anonymousActor } from "../../src/access/policy.ts";
import type { Archive } from "../../src/app/context.ts";
import { admin, as, investigator, investigatorB, seedBodies, typed } from "../support/catalogue.ts";

async function eventsFor(a: Archive, id: string) {
  return (await a.log.eventsFor(id)).map((e) => e.event);
}

/** Fake originals for photo tests: rows only (bodies hold references, never bytes). */
async function fakeOriginals(a: Archive, n: number): Promise<string[]> {
  const db = a.db.db;
  await db
    .insertInto("sources")
    .values({ id: "src_test", label: "t", kind: "folder", intake_path: "/x", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: "2026-01-01T00:00:00Z", finished_at: null, actor: "t", files: n, ingested: n, duplicates: 0, quarantined: 0, bytes: 0 })
    .execute();
  const shas = Array.from({ length: n }, (_, i) => (i + 1).toString(16).padStart(64, "0"));
  await db
    .insertInto("originals")
    .values(
      shas.map((sha256, i) => ({
        sha256, size: 1, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: "2026-01-01T00:00:00Z",
        first_source_id: "src_test", width: 10, height: 10, phash: null, capture_time: `2012-05-0${1 + (i % 9)}T10:00:00+03:00`, camera_make: null, camera_model: "D90", camera_serial: "SERIAL-SECRET", metadata_json: null, exif_raw: null, xmp_raw: null,
      })),
    )
    .execute();
  return shas;
}

for (const { backend, skip } of await backends()) {
  test(`an edit keeps every field's old and new value and is one custody event, in the same transaction (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const [row] = await seedBodies(t.archive, investigator, [{ hospital: "601", sex: "male", ageMin: 20, ageMax: 30, numbers: [typed("detainee", "1234")] }]);
      const id = row!.id;
      const before = (await t.archive.log.size());
      const edited = await editBody(t.archive, investigator, {
        id,
        version: 1,
        hospital: "تشرين",
        ageMax: 35,
        nameAr: "محمود  الحلبي",
        marks: [{ type: "scar", region: "arm_left", description: "ندبة على الساعد الأيسر" }],
        injuries: ["burn_thermal"],
        deathDate: "spring 2012",
      });
      assert.equal(edited.version, 2);
      assert.equal(edited.hospital, "tishreen");
      assert.deepEqual(edited.deathDate, { text: "2012-spring", earliest: "2012-03-01", latest: "2012-05-31" });
      assert.equal(await t.archive.log.size(), before + 1, "one event for the edit");

      const history = (await recordHistory(t.archive, investigator, id)).filter((h) => h.eventSeq === before);
      const byField = Object.fromEntries(history.map((h) => [h.field, [h.old, h.new]]));
      assert.deepEqual(byField, {
        hospital: ["601", "tishreen"],
        ageMax: [30, 35],
        nameAr: [null, "محمود  الحلبي"],
        marks: [[], [{ type: "scar", region: "arm_left", description: "ندبة على الساعد الأيسر" }]],
        injuries: [[], ["burn_thermal"]],
        deathDate: [null, "2012-spring"],
      });
      assert.ok(history.every((h) => h.actor === investigator.id));

      const events = await eventsFor(t.archive, id);
      const last = events[events.length - 1]!;
      assert.equal(last.type, "metadata modification");
      assert.equal(last.detail.action, "body.edit");
      assert.deepEqual(last.detail.fields, ["ageMax", "deathDate", "hospital", "injuries", "marks", "nameAr"]);
      // The public log names fields, never values: no name, no hospital in the leaf.
      const leaf = JSON.stringify(last);
      assert.ok(!leaf.includes("محمود") && !leaf.includes("tishreen"), "values stay out of the log");
      assert.deepEqual(await verifyHistory(t.archive, id), { checked: 2, mismatched: [] });

      // An edit with nothing new writes nothing; a stale version is refused with a sentence.
      await editBody(t.archive, investigator, { id, hospital: "tishreen" });
      assert.equal(await t.archive.log.size(), before + 1);
      await assert.rejects(editBody(t.archive, investigator, { id, version: 1, notes: "x" }), (e: unknown) => e instanceof Conflict && /changed by someone else/.test(e.message));
      // Invalid values name their field and nothing is written.
      await assert.rejects(editBody(t.archive, investigator, { id, ageMin: 50 }), (e: unknown) => e instanceof Invalid && e.field === "ageMin");
      await assert.rejects(editBody(t.archive, investigator, { id, hospital: "Nowhere" }), (e: unknown) => e instanceof Invalid && /hospital vocabulary/.test(e.message));
      await assert.rejects(editBody(t.archive, investigator, { id, injuries: ["sunburn"] }), (e: unknown) => e instanceof Invalid && e.field === "injuries");
      assert.equal(await t.archive.log.size(), before + 1);
      // A changed history row no longer matches the commitment in the log (the table refuses updates; a
      // tampering at the storage layer is simulated by dropping the guard first).
      if (backend.name === "sqlite") {
        const { sql } = await import("kysely");
        await sql`drop trigger field_history_no_update`.execute(t.archive.db.db);
        await sql`update field_history set new_value = '"601"' where field = 'hospital' and record_id = ${id} and event_seq = ${before}`.execute(t.archive.db.db);
        assert.deepEqual((await verifyHistory(t.archive, id)).mismatched, [before]);
      } else {
        await assert.rejects(cdb(t.archive.db.db).deleteFrom("field_history").execute(), /append-only/);
      }
    } finally {
      await t.close();
    }
  });

  test(`numbers: typed numbers need a second person, a disagreeing check retires and re-enters, history kept (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const [row] = await seedBodies(t.archive, investigator, [{}]);
      const id = row!.id;
      const n = await addNumber(t.archive, investigator, { bodyId: id, role: "detainee", value: "١٢٣٤٥" });
      assert.equal(n.valueNorm, "12345");
      assert.equal((await getBody(t.archive, investigator, id)).detaineeNo, "١٢٣٤٥");
      await assert.rejects(checkNumber(t.archive, investigator, { numberId: n.id, agree: true }), (e: unknown) => e instanceof Forbidden && /second person/.test(e.message));
      await assert.rejects(checkNumber(t.archive, as("forensic_reviewer"), { numberId: n.id, agree: true }), (e: unknown) => e instanceof Forbidden && /catalogue\.check/.test(e.message));
      const corrected = await checkNumber(t.archive, investigatorB, { numberId: n.id, agree: false, correctedValue: "12346" });
      assert.equal(corrected.enteredBy, investigatorB.id);
      const body = await getBody(t.archive, investigator, id);
      assert.equal(body.detaineeNo, "12346", "the checker's reading is current");
      assert.equal(body.numbers.find((x) => x.id === n.id)!.retired!.by, investigatorB.id, "the old reading stays, retired");
      const ok = await checkNumber(t.archive, investigator, { numberId: corrected.id, agree: true });
      assert.equal(ok.checkedBy, investigator.id);
      await assert.rejects(checkNumber(t.archive, admin, { numberId: corrected.id, agree: true }), Conflict);
      const h = await recordHistory(t.archive, investigator, id);
      assert.deepEqual(h.filter((x) => x.field === "detaineeNo").map((x) => [x.old, x.new]), [[null, "١٢٣٤٥"], ["١٢٣٤٥", "12346"]]);
      assert.deepEqual((await recordHistory(t.archive, investigator, corrected.id)).map((x) => x.field), ["role", "value", "checkedBy"]);
      await retireNumber(t.archive, investigator, { numberId: corrected.id, reason: "entered against the wrong body" });
      assert.equal((await getBody(t.archive, investigator, id)).detaineeNo, null);
      assert.deepEqual((await searchBodies(t.archive, investigator, { q: "12346" })).total, 0, "a retired number leaves the index");
    } finally {
      await t.close();
    }
  });

  test(`split moves photos and their numbers to a new body; merge brings them back and keeps the absorbed record (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const shas = await fakeOriginals(t.archive, 5);
      const [row] = await seedBodies(t.archive, investigator, [
        { photos: shas.map((sha256) => ({ sha256, role: "full" })), hospital: "601", numbers: [{ ...typed("detainee", "777"), sourceSha256: shas[4]! }, { ...typed("branch", "215"), sourceSha256: shas[0]! }] },
      ]);
      const { from, created } = await splitBody(t.archive, investigator, { bodyId: row!.id, photos: [shas[3]!, shas[4]!], reason: "two people" });
      assert.deepEqual(from.photos.map((p) => p.sha256), shas.slice(0, 3));
      assert.deepEqual(created.photos.map((p) => [p.sha256, p.position]), [[shas[3], 1], [shas[4], 2]]);
      assert.equal(created.detaineeNo, "777", "the number read from a moved photo moves with it");
      assert.equal(from.detaineeNo, null);
      assert.equal(from.branchNo, "215");
      assert.equal(created.sourceId, null);
      assert.deepEqual((await searchBodies(t.archive, investigator, { q: shas[4]! })).items.map((i) => i.ref), [created.ref], "photo hashes are searchable");

      await editBody(t.archive, investigator, { id: created.id, sex: "male", hospital: "harasta", notes: "وشم" });
      const m = await mergeBodies(t.archive, investigator, { keep: from.ref, absorb: created.id, reason: "the same person after all" });
      assert.deepEqual(m.body.photos.map((p) => p.sha256), shas);
      assert.equal(m.body.detaineeNo, "777");
      assert.equal(m.body.sex, "male", "empty fields take the absorbed record's values");
      assert.equal(m.body.hospital, "601", "differing fields keep the kept record's value…");
      assert.deepEqual(m.conflicts, [{ field: "hospital", kept: "601", absorbed: "harasta" }], "…and are reported");
      const gone = await getBody(t.archive, investigator, created.id);
      assert.equal(gone.mergedInto, from.id);
      assert.deepEqual(gone.photos, []);
      assert.deepEqual((await readBodies(t.archive, investigator)).items.map((b) => b.ref), [from.ref], "merged records leave listings");
      assert.deepEqual((await searchBodies(t.archive, investigator, { q: "وشم" })).items.map((i) => i.ref), [from.ref]);
      await assert.rejects(editBody(t.archive, investigator, { id: created.id, notes: "x" }), (e: unknown) => e instanceof Conflict && /merged/.test(e.message));
      await assert.rejects(mergeBodies(t.archive, investigator, { keep: from.id, absorb: from.ref }), Invalid);
      const ev = await eventsFor(t.archive, created.id);
      assert.deepEqual(ev.map((e) => e.detail.action), ["body.split", "body.split", "body.edit", "body.merge"]);
    } finally {
      await t.close();
    }
  });

  test(`policy: reads and changes are refused with their reason to roles without them (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const [row] = await seedBodies(t.archive, investigator, [{ notes: "x" }]);
      const id = row!.id;
      await assert.rejects(getBody(t.archive, as("curator"), id), (e: unknown) => e instanceof Forbidden && /\(curator\) may not do this \(catalogue\.read\)/.test(e.message));
      await assert.rejects(getBody(t.archive, anonymousActor, id), (e: unknown) => e instanceof Unauthenticated || e instanceof Forbidden);
      await assert.rejects(editBody(t.archive, as("forensic_reviewer"), { id, notes: "y" }), (e: unknown) => e instanceof Forbidden && /catalogue\.edit/.test(e.message));
      await assert.rejects(editBody(t.archive, as("prosecutor"), { id, notes: "y" }), (e: unknown) => e instanceof Forbidden && /prosecutor/.test(e.message));
      await assert.rejects(splitBody(t.archive, as("archivist"), { bodyId: id, photos: ["a"] }), (e: unknown) => e instanceof Forbidden && /catalogue\.group/.test(e.message));
      await assert.rejects(
        addVocabularyTerm(t.archive, investigator, { vocabulary: "hospital", code: "x", labelAr: "س", labelEn: "X" }),
        (e: unknown) => e instanceof Forbidden && /vocabulary\.manage/.test(e.message),
      );
      // A record marked confidential is beyond an investigator's clearance, and the refusal says so.
      await editBody(t.archive, admin, { id, sensitivity: "confidential" });
      await assert.rejects(getBody(t.archive, investigator, id), (e: unknown) => e instanceof Forbidden && /marked confidential/.test(e.message));
      await assert.rejects(editBody(t.archive, investigator, { id, notes: "z" }), (e: unknown) => e instanceof Forbidden && /marked confidential/.test(e.message));
      for (const role of ["forensic_reviewer", "family_caseworker", "prosecutor", "archivist"] as const) {
        await editBody(t.archive, admin, { id, sensitivity: "restricted" });
        assert.equal((await getBody(t.archive, as(role), id)).id, id, `${role} reads body records`);
      }
      await assert.rejects(editBody(t.archive, investigator, { id, sensitivity: "confidential" }), (e: unknown) => e instanceof Forbidden && /hide it from you/.test(e.message));
    } finally {
      await t.close();
    }
  });

  test(`other modules change review status and findings through updateBodyInTx, in their own transaction (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const [row] = await seedBodies(t.archive, investigator, [{ injuries: ["blunt_force"] }]);
      const reviewer = as("forensic_reviewer", "usr_rev");
      const before = await t.archive.log.size();
      // The caller's transaction fails after the change: nothing of it remains, not even its event.
      await assert.rejects(
        t.archive.db.transaction(async (tx) => {
          await updateBodyInTx(t.archive, tx, reviewer, row!.id, { reviewStatus: "reviewed", reviewFindings: ["ligature"] }, { action: "review.sign", objects: [{ id: "rev_1", role: "review" }] });
          throw new Error("the review's own write failed");
        }),
        /own write failed/,
      );
      assert.equal(await t.archive.log.size(), before);
      assert.equal((await getBody(t.archive, investigator, row!.id)).reviewStatus, "unreviewed");
      await t.archive.db.transaction(async (tx) => {
        await updateBodyInTx(t.archive, tx, reviewer, row!.id, { reviewStatus: "reviewed", reviewFindings: ["ligature", "eye_injury"] }, { action: "review.sign" });
      });
      const b = await getBody(t.archive, investigator, row!.id);
      assert.equal(b.reviewStatus, "reviewed");
      assert.deepEqual(b.reviewFindings, ["eye_injury", "ligature"]);
      assert.deepEqual(b.injuries, ["blunt_force"], "observed findings are kept apart from review findings");
      const r = await searchBodies(t.archive, investigator, { review: ["reviewed"], finding: ["ligature"] });
      assert.equal(r.total, 1);
      assert.deepEqual(Object.fromEntries(r.facets.finding!.map((f) => [f.value, f.count])), { blunt_force: 1, ligature: 1, eye_injury: 1 });
    } finally {
      await t.close();
    }
  });

  test(`vocabularies: seeded bilingual, extendable by administrators, a relabel re-indexes the bodies that carry the term (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const gov = await t.archive.db.db.selectFrom("vocabularies" as never).selectAll().where("vocabulary" as never, "=", "governorate" as never).execute() as { code: string; label_ar: string }[];
      assert.deepEqual(
        gov.map((g) => g.code).sort(),
        ["SY-DI", "SY-DR", "SY-DY", "SY-HA", "SY-HI", "SY-HL", "SY-HM", "SY-ID", "SY-LA", "SY-QU", "SY-RA", "SY-RD", "SY-SU", "SY-TA"],
      );
      assert.equal(gov.find((g) => g.code === "SY-HL")!.label_ar, "حلب");
      await seedBodies(t.archive, investigator, [{ hospital: "harasta" }]);
      const term = await addVocabularyTerm(t.archive, admin, { vocabulary: "hospital", code: "mujtahid", labelAr: "مشفى المجتهد", labelEn: "Al-Mujtahid Hospital" });
      assert.equal(term.code, "mujtahid");
      await assert.rejects(addVocabularyTerm(t.archive, admin, { vocabulary: "hospital", code: "mujtahid", labelAr: "س", labelEn: "X" }), Conflict);
      await updateVocabularyTerm(t.archive, admin, { vocabulary: "hospital", code: "harasta", labelEn: "Harasta National Hospital" });
      assert.equal((await searchBodies(t.archive, investigator, { q: "national" })).total, 1, "the new label is searchable");
      assert.deepEqual((await recordHistory(t.archive, investigator, "hospital:harasta")).map((h) => [h.field, h.old, h.new]), [["labelEn", "Harasta Military Hospital", "Harasta National Hospital"]]);
    } finally {
      await t.close();
    }
  });

  test(`entities with a chain of command, links with evidence, and links follow a merge (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const [b1, b2] = await seedBodies(t.archive, investigator, [{ numbers: [typed("branch", "215")] }, {}]);
      const mi = await createEntity(t.archive, investigator, { kind: "unit", nameEn: "Military Intelligence", nameAr: "شعبة المخابرات العسكرية" });
      const branch = await createEntity(t.archive, investigator, { kind: "unit", number: "٢١٥", nameAr: "فرع المداهمة", parentId: mi.id, vocabularyCode: "215", governorate: "Damascus" });
      assert.equal(branch.numberNorm, "215");
      assert.equal(branch.governorate, "SY-DI");
      const head = await createEntity(t.archive, investigator, { kind: "person", nameEn: "A. Example (invented)", title: "Brigadier General" });
      const chief = await createEntity(t.archive, investigator, { kind: "person", nameEn: "B. Example (invented)", commanderId: head.id });
      assert.equal(head.sensitivity, "restricted");
      await assert.rejects(createEntity(t.archive, investigator, { kind: "unit", nameEn: "x", commanderId: mi.id }), (e: unknown) => e instanceof Invalid && /person of interest/.test(e.message));
      const { updateEntity, getEntity } = await import("../../src/catalogue/index.ts");
      await updateEntity(t.archive, investigator, { id: branch.id, commanderId: chief.id });
      await assert.rejects(updateEntity(t.archive, investigator, { id: head.id, commanderId: chief.id }), (e: unknown) => e instanceof Invalid && /circle/.test(e.message));
      const d = await getEntity(t.archive, investigator, branch.id);
      assert.deepEqual(d.parents.map((p) => p.id), [mi.id]);
      assert.deepEqual(d.commanders.map((p) => p.id), [chief.id, head.id]);

      const body = await getBody(t.archive, investigator, b2!.id);
      const num = (await getBody(t.archive, investigator, b1!.id)).numbers[0]!;
      await assert.rejects(
        createLink(t.archive, investigator, { type: "held_by", from: { kind: "body", id: b2!.id }, to: { kind: "entity", id: branch.id }, evidence: [], reasoning: "seen on the card" }),
        (e: unknown) => e instanceof Invalid && /at least one piece of evidence/.test(e.message),
      );
      await assert.rejects(
        createLink(t.archive, investigator, { type: "held_by", from: { kind: "entity", id: head.id }, to: { kind: "entity", id: branch.id }, evidence: [{ kind: "testimony", ref: "x" }], reasoning: "because" }),
        (e: unknown) => e instanceof Invalid && /starts at a body/.test(e.message),
      );
      const link = await createLink(t.archive, investigator, {
        type: "held_by",
        from: { kind: "body", id: b1!.id },
        to: { kind: "entity", id: branch.id },
        evidence: [{ kind: "number", ref: num.id, note: "branch number written on the body" }],
        reasoning: "The branch number 215 is written on the body's card.",
        confidence: "confirmed",
      });
      const l2 = await createLink(t.archive, investigator, { type: "commands", from: { kind: "entity", id: chief.id }, to: { kind: "entity", id: branch.id }, evidence: [{ kind: "document", ref: "defector statement, p. 12" }], reasoning: "named as head of the branch" });
      assert.deepEqual((await linksOf(t.archive, investigator, { recordId: branch.id })).map((l) => l.id), [link.id, l2.id]);
      assert.deepEqual((await linksOf(t.archive, as("curator", "usr_cur"), { recordId: branch.id }).catch((e: Error) => e.message)), "Your role (curator) may not do this (catalogue.read). Ask an administrator if you need it.");
      await mergeBodies(t.archive, investigator, { keep: body.id, absorb: b1!.id });
      const moved = await linksOf(t.archive, investigator, { recordId: body.id });
      assert.deepEqual(moved.map((l) => [l.id, l.from.id]), [[link.id, body.id]], "the link now starts at the kept body");
      assert.ok((await recordHistory(t.archive, investigator, link.id)).some((h) => h.field === "fromId" && h.old === b1!.id && h.new === body.id));
    } finally {
      await t.close();
    }
  });
}
