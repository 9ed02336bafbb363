import { test } from "node:test";
import assert from "node:assert/strict";
import type { Actor } from "../../src/core/actor.ts";
import { createEntity } from "../../src/catalogue/index.ts";
import { addExhibit, createDossier, showDossier } from "../../src/dossiers/index.ts";
import { exhibitLabels } from "../../src/dossiers/labels.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, seedOriginal } from "../support/accounts.ts";
import { admin, investigator, seedBodies, typed } from "../support/catalogue.ts";

const prosecutor: Actor = { kind: "user", id: "usr_pros", role: "prosecutor" };

for (const { backend, skip } of await backends()) {
  test(`exhibits are labelled for the reader: a body by its reference, an entity by its names; what the reader may not see keeps its id (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const a = t.ctx;
      const { sha256: photo } = await seedOriginal(a);
      const [body] = await seedBodies(a, investigator, [{ numbers: [typed("branch", "215")], photos: [{ sha256: photo }] }]);
      const hospital = await createEntity(a, investigator, { kind: "facility", nameEn: "Tishreen Military Hospital", nameAr: "مستشفى تشرين العسكري" });
      const unit = await createEntity(a, investigator, { kind: "unit", number: "215" });
      const secret = await createEntity(a, admin, { kind: "person", nameEn: "A protected witness", sensitivity: "confidential" });
      const d = await createDossier(a, admin, { name: "Branch 215" });
      for (const [kind, ref] of [["body", body!.id], ["facility", hospital.id], ["unit", unit.id], ["person", secret.id], ["photo", photo]] as const) {
        await addExhibit(a, admin, { dossierId: d.id, kind, ref, reasoning: `why ${kind}` });
      }
      const exhibits = (await showDossier(a, admin, d.id)).exhibits;

      const forAdmin = await exhibitLabels(a, admin, exhibits);
      assert.deepEqual(forAdmin[body!.id], { ar: body!.ref, en: body!.ref });
      assert.deepEqual(forAdmin[hospital.id], { ar: "مستشفى تشرين العسكري", en: "Tishreen Military Hospital" });
      assert.deepEqual(forAdmin[unit.id], { ar: "215", en: "215" }, "an entity without names goes by its number");
      assert.deepEqual(forAdmin[secret.id], { ar: "A protected witness", en: "A protected witness" }, "one name stands in for the other");
      assert.equal(forAdmin[photo], undefined, "a photo is shown by its hash");

      // A prosecutor's clearance stops below "confidential": the witness keeps its bare id, nothing else changes.
      const forProsecutor = await exhibitLabels(a, prosecutor, exhibits);
      assert.equal(forProsecutor[secret.id], undefined);
      assert.deepEqual(forProsecutor[hospital.id], forAdmin[hospital.id]);
      assert.deepEqual(forProsecutor[body!.id], forAdmin[body!.id]);
    } finally {
      await t.close();
    }
  });
}
