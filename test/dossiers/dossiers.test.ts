import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Actor } from "../../src/core/actor.ts";
import { createEntity } from "../../src/catalogue/index.ts";
import { addExhibit, createDossier, freezeDossier, listVersions, reviseReasoning, showDossier, withdrawExhibit } from "../../src/dossiers/index.ts";
import { canonicalJson } from "../../src/core/canonical-json.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, seedOriginal } from "../support/accounts.ts";
import { seedBodies, typed, investigator } from "../support/catalogue.ts";

const prosecutor: Actor = { kind: "user", id: "usr_pros", role: "prosecutor" };
const curator: Actor = { kind: "user", id: "usr_cur", role: "curator" };

for (const { backend, skip } of await backends()) {
  test(`exhibit numbers are issued once and kept across withdrawal, re-adding and versions; versions are immutable snapshots with their reasoning (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const a = t.ctx;
      const { sha256: photo } = await seedOriginal(a);
      const [b1, b2, b3] = await seedBodies(a, investigator, [
        { numbers: [typed("branch", "215"), typed("detainee", "1001")], photos: [{ sha256: photo }] },
        { numbers: [typed("branch", "215"), typed("detainee", "1002")] },
        { numbers: [typed("branch", "227")] },
      ]);
      const branch = await createEntity(a, investigator, { kind: "facility", number: "215", nameEn: "Branch 215" });
      await assert.rejects(createDossier(a, prosecutor, { name: "x" }), /may not do this \(dossier\.edit\)/);
      const d = await createDossier(a, investigator, { name: "Officers of Branch 215", description: "Deaths in Branch 215, 2012–2013" });

      const e1 = await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b1!.ref, reasoning: "Branch number 215 written on the card in photo 1", evidence: [{ kind: "photo", ref: photo, note: "the card" }] });
      const e2 = await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b2!.id, reasoning: "Branch number 215 on the forehead" });
      const e3 = await addExhibit(a, investigator, { dossierId: d.id, kind: "facility", ref: branch.id, reasoning: "The branch the case is against" });
      const e4 = await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photo, reasoning: "The card photo itself" });
      assert.deepEqual([e1.number, e2.number, e3.number, e4.number], ["E-0001", "E-0002", "E-0003", "E-0004"]);
      assert.equal(e1.kind, "body");
      await assert.rejects(addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b1!.id, reasoning: "again" }), /already exhibit E-0001/);
      await assert.rejects(addExhibit(a, investigator, { dossierId: d.id, kind: "unit", ref: branch.id, reasoning: "wrong kind" }), /is a facility, not a unit/);
      await assert.rejects(addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b3!.id, reasoning: "" }), /reasoning/);

      const v1 = await freezeDossier(a, investigator, { id: d.id, note: "first filing" });
      assert.equal(v1.version, 1);
      await assert.rejects(freezeDossier(a, investigator, { id: d.id }), /Nothing changed since version 1/);

      // Withdraw E-0002, add a new body, re-add the withdrawn one: it gets E-0002 back; the new body E-0005.
      await withdrawExhibit(a, investigator, { dossierId: d.id, number: "E-0002", reason: "the number was misread" });
      const e5 = await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b3!.id, reasoning: "Transferred from 215 per testimony T-7" });
      assert.equal(e5.number, "E-0005", "a withdrawn number is never given to another record");
      const draft = await showDossier(a, investigator, d.id);
      assert.equal(draft.version, 2);
      assert.equal(draft.frozen, null);
      assert.equal(draft.exhibits.find((e) => e.number === "E-0002")!.status, "withdrawn");
      await reviseReasoning(a, investigator, { dossierId: d.id, number: "E-0001", reasoning: "Branch 215 on the card, confirmed by a second reader" });
      const v2 = await freezeDossier(a, investigator, { id: d.id });
      const back = await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: b2!.id, reasoning: "Re-read: it is 215 after all" });
      assert.equal(back.number, "E-0002", "re-adding brings back the same number");
      const v3 = await freezeDossier(a, investigator, { id: d.id });
      assert.deepEqual([v2.version, v3.version], [2, 3]);

      // Frozen versions are what they were: selection, reasoning and numbers.
      const s1 = await showDossier(a, prosecutor, d.id, 1);
      const s2 = await showDossier(a, prosecutor, d.id, 2);
      const s3 = await showDossier(a, prosecutor, d.id, 3);
      assert.equal(s1.exhibits.find((e) => e.number === "E-0001")!.reasoning, "Branch number 215 written on the card in photo 1");
      assert.deepEqual(s1.exhibits.find((e) => e.number === "E-0001")!.evidence, [{ kind: "photo", ref: photo, note: "the card" }]);
      assert.equal(s2.exhibits.find((e) => e.number === "E-0001")!.reasoning, "Branch 215 on the card, confirmed by a second reader");
      assert.deepEqual(s1.exhibits.map((e) => [e.number, e.status]), [["E-0001", "active"], ["E-0002", "active"], ["E-0003", "active"], ["E-0004", "active"]]);
      assert.deepEqual(s2.exhibits.map((e) => [e.number, e.status]), [["E-0001", "active"], ["E-0002", "withdrawn"], ["E-0003", "active"], ["E-0004", "active"], ["E-0005", "active"]]);
      assert.equal(s2.exhibits.find((e) => e.number === "E-0002")!.withdrawn?.reason, "the number was misread");
      assert.equal(s3.exhibits.find((e) => e.number === "E-0002")!.reasoning, "Re-read: it is 215 after all");
      assert.equal(s1.exhibits.find((e) => e.number === "E-0002")!.reasoning, "Branch number 215 on the forehead");
      for (const [s, v] of [[s1, v1], [s2, v2], [s3, v3]] as const) {
        const { frozen, summary, ...snap } = s;
        void summary;
        assert.equal(createHash("sha256").update(canonicalJson(snap), "utf8").digest("hex"), v.sha256, "the stored snapshot is the one hashed at freezing");
        assert.equal(frozen!.sha256, v.sha256);
        const ev = (await a.log.eventsFor(d.id)).find((e) => e.seq === v.eventSeq)!;
        assert.equal(ev.event.detail.action, "dossier.freeze");
        assert.equal(ev.event.detail.sha256, v.sha256);
      }
      const versions = await listVersions(a, prosecutor, d.id);
      assert.deepEqual(versions.versions.map((v) => [v.version, v.exhibits, v.withdrawn]), [[1, 4, 0], [2, 4, 1], [3, 5, 0]]);
      await assert.rejects(showDossier(a, curator, d.id), /may not do this \(dossier\.read\)/);

      // Every change is a custody event; none carries the dossier's name or the reasoning.
      const events = (await a.log.eventsFor(d.id)).map((e) => e.event);
      assert.deepEqual(events.map((e) => e.detail.action), [
        "dossier.create", "exhibit.add", "exhibit.add", "exhibit.add", "exhibit.add", "dossier.freeze",
        "exhibit.withdraw", "exhibit.add", "exhibit.reasoning", "dossier.freeze", "exhibit.restore", "dossier.freeze",
      ]);
      const all = JSON.stringify(events);
      assert.ok(!all.includes("Branch 215") && !all.includes("misread") && !all.includes("Officers"), "no names or reasoning in the public log");
      const photoEvents = (await a.log.eventsFor(photo)).map((e) => e.event.detail.action);
      assert.ok(photoEvents.includes("exhibit.add"), "selecting a photo is an event on that photo");
    } finally {
      await t.close();
    }
  });
}
