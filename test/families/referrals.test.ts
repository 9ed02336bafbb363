import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody } from "../support/casework.ts";
import { createReport, listCandidates, rerank, setConsent } from "../../src/families/index.ts";
import { createReferral, listReferrals, updateReferral } from "../../src/families/referrals.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalReport } from "../../src/families/portal.ts";
import { rankBodies, rankBodiesNaive, type ReportFeatures, type Scored } from "../../src/families/scoring.ts";
import { rankAll } from "../../src/families/rank-pool.ts";
import { bodiesWithEvidence, generateSynthetic, reportWithEvidence, syntheticBodyFeatures, syntheticReportFeatures } from "../../src/families/synthetic.ts";
import { Conflict, Forbidden, Invalid } from "../../src/core/errors.ts";

const line = (s: Scored[]): string => s.map((c) => `${c.ref}:${c.score}:${c.band}`).join(" ");

test("DNA results in the ranking: an exclusion excludes, a match comes first and strong, the rest is shown and changes nothing; the fast ranking agrees with the full scoring", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 1200, reports: 12, named: 0.4, seed: 31 });
  const fs = bodies.map(syntheticBodyFeatures);
  for (const r of reports) {
    const plain = syntheticReportFeatures(r.input);
    const before = rankBodies(plain, fs, 20);
    const low = before[15]!;
    const dna = [
      { bodyId: before[0]!.bodyId, outcome: "exclusion" as const, on: "2026-03-01" },
      { bodyId: low.bodyId, outcome: "match" as const, on: "2026-03-02" },
      { bodyId: before[1]!.bodyId, outcome: "inconclusive" as const, on: null },
      { bodyId: before[2]!.bodyId, outcome: "pending" as const, on: null },
    ];
    const f = { ...plain, dna };
    const after = rankBodies(f, fs, 20);
    assert.equal(line(after), line(rankBodiesNaive(f, fs, 20)), r.input.ref);
    assert.equal(after[0]!.bodyId, low.bodyId, "the match first");
    assert.equal(after[0]!.band, "strong");
    assert.match(after[0]!.evidence.at(-1)!.text, /matches this body \(result of 2026-03-02\)/);
    assert.ok(!after.some((c) => c.bodyId === before[0]!.bodyId), "the excluded body leaves the list");
    const all = rankBodies(f, fs);
    const gone = all.find((c) => c.bodyId === before[0]!.bodyId)!;
    assert.equal(gone.band, "exclude");
    assert.equal(gone.evidence.at(-1)!.key, "dnaExclusion");
    for (const [k, key] of [[1, "dnaInconclusive"], [2, "dnaPending"]] as const) {
      const c = after.find((x) => x.bodyId === before[k]!.bodyId)!;
      assert.equal(c.score, before[k]!.score, "an inconclusive or pending comparison changes nothing");
      assert.equal(c.evidence.at(-1)!.key, key);
    }
  }
});

test("DNA results cross to the ranking's worker threads with their report", async () => {
  const { bodies, reports } = generateSynthetic({ bodies: 400, reports: 12, seed: 32 });
  const fs = bodies.map(syntheticBodyFeatures);
  const rf: ReportFeatures[] = reports.map((r, k) => ({ ...syntheticReportFeatures(r.input), dna: [{ bodyId: fs[k * 7]!.id, outcome: "match" as const, on: null }] }));
  const got: string[] = [];
  await rankAll(fs, rf, { top: 5, threads: 2, chunk: 4, onChunk: async (start, ranked) => void ranked.forEach((s, k) => (got[start + k] = line(s))) });
  rf.forEach((f, k) => {
    assert.equal(got[k], line(rankBodies(f, fs, 5)));
    assert.ok(got[k]!.startsWith(`${fs[k * 7]!.ref}:`), "the matched body first");
  });
});

for (const { backend, skip } of await backends()) {
  test(`a DNA referral needs the family's consent; its result moves the ranking; every change is kept; the portal shows none of it (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const [other] = await seedBodies(a, investigator, [{ sex: "male", ageMin: 25, ageMax: 40, photoDate: "2013-06-01" }]);
      const report = await createReport(a, caseworker, REPORT);
      await rerank(a, caseworker, { reportId: report.id });
      assert.equal((await listCandidates(a, caseworker, report.ref)).candidates[0]!.bodyId, body.id);

      const refused = createReferral(a, caseworker, { report: report.ref, bodyId: body.ref, lab: "Lab Zq" });
      await assert.rejects(refused, (e: Error) => e instanceof Conflict && /has not consented to a DNA referral/.test(e.message));
      const mother = await familyMember(a, "mother");
      await assert.rejects(createReferral(a, mother, { report: report.ref }), Forbidden);

      await setConsent(a, caseworker, report.id, "dnaReferral", true);
      const ref = await createReferral(a, caseworker, { report: report.ref, bodyId: body.ref, sampleFrom: "mother", sampleTakenOn: "2026-02-01", lab: "Lab Zq", labRef: "LABREF-7731" });
      assert.equal(ref.status, "requested");
      assert.equal(ref.bodyRef, body.ref);
      await assert.rejects(updateReferral(a, caseworker, { id: ref.id, status: "result" }), (e: Error) => e instanceof Invalid && /needs its result/.test(e.message));
      await assert.rejects(createReferral(a, caseworker, { report: report.ref, status: "result", result: "match" }), (e: Error) => e instanceof Invalid && /name the body/.test(e.message));
      await assert.rejects(updateReferral(a, caseworker, { id: ref.id, expectedVersion: 9, status: "sent" }), Conflict);

      // an exclusion takes the body out of the candidates, with the sentence why
      await updateReferral(a, caseworker, { id: ref.id, expectedVersion: 1, status: "sent" });
      const excluded = await updateReferral(a, caseworker, { id: ref.id, status: "result", result: "exclusion", resultOn: "2026-03-01" });
      await rerank(a, caseworker, { reportId: report.id });
      let cands = (await listCandidates(a, caseworker, report.ref)).candidates;
      assert.equal(cands[0]!.bodyId, other!.id);
      const gone = cands.find((c) => c.bodyId === body.id)!;
      assert.equal(gone.band, "exclude");
      assert.match(gone.evidence.at(-1)!.text, /DNA comparison with the family's sample excludes this body \(result of 2026-03-01\)/);

      // a match on the other body makes it first and strong
      await createReferral(a, caseworker, { report: report.ref, bodyId: other!.id, status: "result", result: "match", resultOn: "2026-03-05", labRef: "LABREF-7732" });
      await rerank(a, caseworker, { reportId: report.id });
      cands = (await listCandidates(a, caseworker, report.ref)).candidates;
      assert.equal(cands[0]!.bodyId, other!.id);
      assert.equal(cands[0]!.band, "strong");
      assert.equal(cands[0]!.evidence.at(-1)!.key, "dnaMatch");

      // every version is kept: the current one with the earlier ones as its history
      const listed = await listReferrals(a, caseworker, report.ref);
      const first = listed.find((x) => x.id === ref.id)!;
      assert.deepEqual(first, excluded);
      assert.equal(first.version, 3);
      assert.deepEqual(first.history.map((h) => [h.version, h.status, h.result]), [[2, "sent", null], [1, "requested", null]]);
      assert.equal(first.history[1]!.labRef, "LABREF-7731");

      // custody events name the referral, never the laboratory, its reference or the donor
      const events = (await a.log.eventsFor(report.id)).map((e) => e.event).filter((e) => String(e.detail.action).startsWith("report.dna-referral"));
      assert.deepEqual(events.map((e) => [e.detail.action, e.detail.status]), [["report.dna-referral", "requested"], ["report.dna-referral-changed", "sent"], ["report.dna-referral-changed", "result"], ["report.dna-referral", "result"]]);
      const logged = JSON.stringify(events);
      assert.ok(!/LABREF|Lab Zq|mother/.test(logged), logged);

      // the family's portal shows nothing of referrals (only their own consent to one, as before)
      await linkMember(a, caseworker, { report: report.ref, userId: mother.id, relationship: "mother" });
      const seen = JSON.stringify(await portalReport(a, mother, report.ref));
      assert.ok(!/LABREF|Lab Zq|dnr_|exclusion|"match"|sample/i.test(seen), seen);

      // consent withdrawn: no new change, and the ranking no longer reads the results
      await setConsent(a, caseworker, report.id, "dnaReferral", false);
      await assert.rejects(updateReferral(a, caseworker, { id: ref.id, note: "x" }), (e: Error) => e instanceof Conflict && /consent/.test(e.message));
      await rerank(a, caseworker, { reportId: report.id });
      cands = (await listCandidates(a, caseworker, report.ref)).candidates;
      assert.equal(cands[0]!.bodyId, body.id);
      assert.ok(cands.every((c) => !c.evidence.some((e) => e.feature === "dna")));
    } finally {
      await t.close();
    }
  });
}

test("the generator's evidence options: the bodies and reports are those without them, the shares are kept, the same seed gives the same evidence", () => {
  const plain = generateSynthetic({ bodies: 4000, reports: 3000, seed: 41 });
  const opts = { hiddenMarks: 0.5, reviewMarks: 0.4, documents: 0.25, documentNoise: 0.2, dna: 0.2, dnaTruth: 0.6, dnaInconclusive: 0 };
  const a = generateSynthetic({ bodies: 4000, reports: 3000, seed: 41, evidence: opts });
  const b = generateSynthetic({ bodies: 4000, reports: 3000, seed: 41, evidence: opts });
  assert.deepEqual(a.bodies, plain.bodies);
  assert.deepEqual(a.reports, plain.reports, "the reports are left as they are");
  const ev = a.evidence!;
  const flat = (e: typeof ev) => JSON.stringify([...Object.entries(e)].map(([k, m]) => [k, [...m.entries()]]));
  assert.equal(flat(ev), flat(b.evidence!));
  // within four standard deviations of a share drawn n times
  const near = (x: number, want: number, what: string, n: number): void =>
    assert.ok(Math.abs(x - want) < 4 * Math.sqrt((want * (1 - want)) / n), `${what}: ${x.toFixed(3)}, expected about ${want} of ${n}`);
  const bare = a.bodies.filter((x) => x.marks.length === 0);
  near(ev.hiddenMarks.size / bare.length, 0.5, "bodies without recorded marks that had some", bare.length);
  assert.ok([...ev.hiddenMarks.keys()].every((k) => bare.some((x) => x.key === k)), "only bodies without recorded marks");
  near(ev.reviewMarks.size / ev.hiddenMarks.size, 0.4, "of those, recorded in review", ev.hiddenMarks.size);
  assert.ok([...ev.reviewMarks].every(([k, m]) => m.map((x) => x.type).join() === ev.hiddenMarks.get(k)!.map((x) => x.type).join()), "a review records the marks the person had");
  near(ev.documents.size / a.bodies.length, 0.25, "bodies in registers", a.bodies.length);
  near(ev.dna.size / a.reports.length, 0.2, "reports with DNA comparisons", a.reports.length);
  const findings = [...ev.dna].flatMap(([ref, fs]) => fs.map((f) => ({ ref, ...f })));
  const truth = new Map(a.reports.map((r) => [r.input.ref, r.truth]));
  assert.ok(findings.every((f) => (f.outcome === "match") === (f.bodyId === truth.get(f.ref))), "matches are the right body, exclusions wrong ones");
  const present = [...ev.dna.keys()].filter((ref) => truth.get(ref) !== null);
  near(findings.filter((f) => f.outcome === "match").length / present.length, 0.6, "reports about someone in the catalogue compared with the right body", present.length);
  assert.ok(findings.some((f) => f.outcome === "exclusion"));

  // bodies with the evidence, as bodyFeatures reads a stored body: review marks added, a register's name where none
  const both = bodiesWithEvidence(a.bodies, ev, { review: true, documents: true });
  const [key, marks] = [...ev.reviewMarks][0]!;
  assert.deepEqual(both.find((x) => x.key === key)!.marks, marks);
  const unnamed = [...ev.documents].find(([k]) => { const x = a.bodies.find((y) => y.key === k)!; return !x.nameAr && !x.nameLat; })!;
  const named = both.find((x) => x.key === unnamed[0])!;
  assert.equal(named.nameAr ?? named.nameLat, unnamed[1].name);
  assert.ok(syntheticBodyFeatures(named).name);
  assert.deepEqual(bodiesWithEvidence(a.bodies, ev, {}), a.bodies);
  const withMarks = [...ev.reportedMarks][0]!;
  const r = a.reports.find((x) => x.input.ref === withMarks[0])!;
  assert.deepEqual(reportWithEvidence(r.input, ev).marks, [...(r.input.marks ?? []), ...withMarks[1]]);
});
