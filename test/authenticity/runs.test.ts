import { test } from "node:test";
import assert from "node:assert/strict";
import type { Actor } from "../../src/core/actor.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { Forbidden, NotFound } from "../../src/core/errors.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { photoAuthenticity, runAuthenticity, showAuthenticity } from "../../src/authenticity/index.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const archivist: Actor = { kind: "user", id: "usr_aut_archivist", role: "archivist" };
const investigator: Actor = { kind: "user", id: "usr_aut_investigator", role: "investigator" };
const curator: Actor = { kind: "user", id: "usr_aut_curator", role: "curator" };

for (const { backend, skip } of await backends()) {
  test(`an analysis is stored with its findings and one validation event; serials only for those cleared; refusals say why (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const { archive: a, close } = await freshArchive(backend);
    try {
      const { dir } = await demoCard(3, true, "authenticity-runs");
      const s = await ingestCard(a, operatorActor(), { path: dir, label: "runs card" });
      const before = await a.log.size();
      const v = await runAuthenticity(a, archivist, { source: "runs card", content: false });
      assert.equal(await a.log.size(), before + 1, "one event per run");
      const row = await a.db.db.selectFrom("custody_events").select(["leaf", "seq"]).where("seq", "=", v.eventSeq).executeTakeFirstOrThrow();
      const ev = parseLeaf(row.leaf);
      assert.equal(ev.type, "validation");
      assert.equal(ev.detail.analysis, "authenticity");
      assert.equal(ev.detail.report, v.reportSha256);
      assert.deepEqual(ev.detail.parameters, { content: false });
      assert.equal(ev.objects[0]?.id, s.source);
      // The card with faults: the truncated JPEG is named with its structural fault.
      assert.ok(v.report.findings.some((f) => f.check === "structure"), "a fault of the card is a structure finding");
      assert.ok(v.report.cameras[0]!.serial, "an archivist sees the serial");

      const seen = await showAuthenticity(a, investigator, { source: s.source });
      assert.equal(seen.run, v.run);
      assert.equal(seen.reportSha256, v.reportSha256);
      assert.equal(seen.report.cameras[0]!.serial, null, "an investigator does not see the serial");

      const flagged = v.report.findings.find((f) => f.photo && f.severity !== "information");
      const clean = v.report.photos.find((p) => p.worst === null)!;
      const pa = await photoAuthenticity(a, investigator, clean.sha256);
      assert.equal(pa.run, v.run);
      assert.equal(pa.summary?.camera, "C1");
      assert.deepEqual(pa.findings, []);
      if (flagged) assert.ok((await photoAuthenticity(a, investigator, flagged.photo!)).findings.length > 0);

      await assert.rejects(runAuthenticity(a, curator, { source: s.source, content: false }), (e: unknown) => e instanceof Forbidden && /authenticity\.run/.test(e.message));
      await assert.rejects(showAuthenticity(a, investigator, { source: "no such card" }), (e: unknown) => e instanceof NotFound && /No source with id or label “no such card”/.test(e.message));
    } finally {
      await close();
    }
  });
}
