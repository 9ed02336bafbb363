import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { demoCard, ensureAccounts, freshArchive } from "../support/archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import type { DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import {
  acceptProposal,
  acceptProposals,
  checkNumber,
  editBody,
  getProposal,
  listProposals,
  mergeProposals,
  proposeGroupings,
  readingsOf,
  registerCatalogueJobs,
  rejectProposal,
  runProposals,
  searchBodies,
  splitProposal,
  type CatalogueEngine,
  type CardReading,
} from "../../src/catalogue/index.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import { admin, as, investigator, investigatorB } from "../support/catalogue.ts";

/**
 * Proposals stored and decided, driven by a scripted engine that "reads" each photo's card from truth.json and
 * groups by the truth: the storage and the decisions are under test here, not the OCR (test/catalogue/ocr*).
 * One last test runs the archive's real engine (Tesseract, offline) over a one-body card.
 */
function scripted(truth: DemoCardTruth): CatalogueEngine & { reads: number } {
  const bodyOf = new Map<string, string>();
  for (const p of truth.photos) if (!bodyOf.has(p.sha256)) bodyOf.set(p.sha256, p.body);
  const bodies = new Map(truth.bodies.map((b) => [b.ref, b]));
  const ind = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
  const engine = {
    readerName: "scripted",
    reads: 0,
    async readCard(_img: Buffer, sha: string): Promise<CardReading[]> {
      engine.reads++;
      const b = bodies.get(bodyOf.get(sha) ?? "");
      if (!b) return [];
      const w = (v: string) => (b.digits === "arabic-indic" ? ind(v) : v);
      return [
        { role: "detainee", value: w(b.detainee_no), confidence: 0.97 },
        { role: "branch", value: w(b.branch_no), confidence: 0.99 },
        { role: "examiner", value: w(b.examiner_no), confidence: 0.9 },
      ];
    },
    group(photos: Parameters<CatalogueEngine["group"]>[0]) {
      const groups = new Map<string, string[]>();
      for (const p of photos) {
        const body = bodyOf.get(p.sha256)!;
        groups.set(body, [...(groups.get(body) ?? []), p.sha256]);
      }
      return [...groups.values()].map((shas) => {
        const first = photos.find((p) => p.sha256 === shas[0])!;
        return {
          photos: shas,
          roles: { [shas[0]!]: "card" },
          numbers: first.readings.map((r) => ({ ...r, photo: first.sha256 })),
          reasons: [{ code: "truth", text: "grouped by the card's truth" }],
          score: 0.95,
        };
      });
    },
    async close() {},
  };
  return engine;
}

for (const { backend, skip } of await backends()) {
  test(`an investigator without clearance for a confidential body sees none of its card readings or grouping proposals, in lists or by id (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { dir, truth } = await demoCard(3, false);
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      const s = await ingestCard(a, operatorActor(), { path: dir, label: "card" });
      await runProposals(a, investigator, { sourceId: s.source, engine: scripted(truth) });
      const [p1, p2] = (await listProposals(a, investigator, { sourceId: s.source })).items;
      const body = await acceptProposal(a, investigator, { proposalId: p1!.id });
      const card = p1!.photos[0]!;
      assert.ok((await readingsOf(a, investigator, card)).length > 0);
      // an administrator marks the body confidential: above an investigator's clearance (restricted)
      await editBody(a, admin, { id: body.id, sensitivity: "confidential" });
      const listed = (await listProposals(a, investigator, { sourceId: s.source })).items.map((p) => p.id);
      assert.ok(!listed.includes(p1!.id) && listed.includes(p2!.id), "the proposal that made it is not listed; the others are");
      await assert.rejects(getProposal(a, investigator, p1!.id), NotFound, "nor found by id");
      await assert.rejects(rejectProposal(a, investigator, { proposalId: p1!.id }), NotFound);
      assert.deepEqual(await readingsOf(a, investigator, card), [], "its card's numbers are not read out");
      // the administrator, cleared for it, still sees all of it
      assert.equal((await getProposal(a, admin, p1!.id)).id, p1!.id);
      assert.ok((await readingsOf(a, admin, card)).length > 0);
    } finally {
      await t.close();
    }
  });

  test(`proposals: stored with readings, accepted into bodies, split, merged, rejected, re-proposed (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { dir, truth } = await demoCard(3, false);
    const t = await freshArchive(backend);
    try {
      const s = await ingestCard(t.archive, operatorActor(), { path: dir, label: "card" });
      const engine = scripted(truth);
      const uniquePhotos = new Set(truth.photos.map((p) => p.sha256)).size;
      const progress: number[] = [];
      const run = await runProposals(t.archive, investigator, { sourceId: s.source, engine, onProgress: (d) => progress.push(d) });
      assert.deepEqual([run.photos, run.proposals, run.readings], [uniquePhotos, 3, uniquePhotos * 3]);
      assert.equal(progress[progress.length - 1], uniquePhotos, "progress reaches every photo");
      const srcEvents = (await t.archive.log.eventsFor(s.source)).map((e) => e.event).filter((e) => e.detail.action === "grouping.propose");
      assert.equal(srcEvents.length, 1);

      const { items } = await listProposals(t.archive, investigator, { sourceId: s.source, status: "proposed" });
      assert.equal(items.length, 3);
      const [p1, p2, p3] = items;
      const truth1 = truth.bodies.find((b) => b.photos.some((path) => truth.photos.find((x) => x.path === path)!.sha256 === p1!.photos[0]))!;

      const body = await acceptProposal(t.archive, investigator, { proposalId: p1!.id });
      assert.deepEqual(body.photos.map((p) => p.sha256), p1!.photos);
      assert.equal(body.photos[0]!.role, "card");
      assert.equal(body.detaineeNoNorm, truth1.detainee_no);
      assert.equal(body.photoDate, truth1.photo_date);
      assert.equal(body.sourceId, s.source);
      assert.ok(body.numbers.every((n) => n.method === "ocr" && n.confidence !== null && n.sourceSha256 === p1!.photos[0] && n.checkedBy === null));
      // OCR numbers may be checked by anyone, including whoever accepted the proposal.
      const checked = await checkNumber(t.archive, investigator, { numberId: body.numbers[0]!.id, agree: true });
      assert.equal(checked.checkedBy, investigator.id);
      await assert.rejects(acceptProposal(t.archive, investigatorB, { proposalId: p1!.id }), (e: unknown) => e instanceof Conflict && /already accepted/.test(e.message));
      assert.equal((await searchBodies(t.archive, investigator, { q: truth1.detainee_no })).items[0]!.id, body.id);
      assert.equal((await readingsOf(t.archive, investigator, p1!.photos[0]!)).length, 3);

      await assert.rejects(splitProposal(t.archive, investigator, { proposalId: p2!.id, parts: [p2!.photos.slice(0, 1), p2!.photos.slice(2)] }), (e: unknown) => e instanceof Invalid && /exactly the proposal's photos/.test(e.message));
      const parts = await splitProposal(t.archive, investigator, { proposalId: p2!.id, parts: [p2!.photos.slice(0, 2), p2!.photos.slice(2)] });
      assert.deepEqual(parts.map((p) => p.photos), [p2!.photos.slice(0, 2), p2!.photos.slice(2)]);
      assert.deepEqual(parts[0]!.parents, [p2!.id]);
      const merged = await mergeProposals(t.archive, investigator, { proposalIds: [parts[1]!.id, parts[0]!.id] });
      assert.deepEqual(merged.photos, p2!.photos, "merged back in capture order");
      assert.equal((await listProposals(t.archive, investigator, { sourceId: s.source, status: "split" })).items.length, 1);
      assert.equal((await listProposals(t.archive, investigator, { sourceId: s.source, status: "merged" })).items.length, 2);

      // All or none: one proposal already decided spoils the batch, and no body is made.
      const before = (await searchBodies(t.archive, investigator, {})).total;
      await assert.rejects(acceptProposals(t.archive, investigator, { proposalIds: [merged.id, p1!.id] }), Conflict);
      assert.equal((await searchBodies(t.archive, investigator, {})).total, before);
      assert.equal((await listProposals(t.archive, investigator, { sourceId: s.source, status: "proposed" })).items.filter((p) => p.id === merged.id).length, 1);
      const [dup, restPart] = await splitProposal(t.archive, investigator, { proposalId: p3!.id, parts: [p3!.photos.slice(0, 1), p3!.photos.slice(1)] });
      await acceptProposal(t.archive, investigator, { proposalId: dup!.id });
      await rejectProposal(t.archive, investigator, { proposalId: restPart!.id, reason: "re-read" });
      assert.equal((await searchBodies(t.archive, investigator, {})).total, before + 1);

      // A second run proposes only the photos no body holds: the rejected part's photos, and the merged one's.
      const again = await runProposals(t.archive, investigator, { sourceId: s.source, engine });
      assert.equal(again.photos, uniquePhotos - p1!.photos.length - 1);
      assert.equal(again.superseded, 1, "the undecided merged proposal is superseded");
      const fresh = (await listProposals(t.archive, investigator, { sourceId: s.source, status: "proposed" })).items;
      assert.equal(fresh.length, 2);
      const batch = await acceptProposals(t.archive, investigator, { proposalIds: fresh.map((p) => p.id) });
      assert.equal(batch.bodies.length, 2);
      assert.equal((await searchBodies(t.archive, investigator, {})).total, before + 3);
      await assert.rejects(runProposals(t.archive, as("archivist"), { sourceId: s.source, engine }), (e: unknown) => e instanceof Forbidden && /catalogue\.group/.test(e.message));
    } finally {
      await t.close();
    }
  });

  test(`a run of the card reader that stops resumes from the photos not yet read (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { dir, truth } = await demoCard(3, false);
    const t = await freshArchive(backend);
    try {
      const s = await ingestCard(t.archive, operatorActor(), { path: dir });
      const unique = new Set(truth.photos.map((p) => p.sha256)).size;
      const first = scripted(truth);
      const stop = new AbortController();
      await assert.rejects(
        runProposals(t.archive, investigator, { sourceId: s.source, engine: first, signal: stop.signal, concurrency: 1, onProgress: (d) => d === 5 && stop.abort() }),
        /cancelled/,
      );
      assert.equal(first.reads, 5, "stopped after five photos");
      assert.equal((await listProposals(t.archive, investigator, { sourceId: s.source })).items.length, 0, "nothing proposed by a stopped run");

      const second = scripted(truth);
      const progress: number[] = [];
      const run = await runProposals(t.archive, investigator, { sourceId: s.source, engine: second, onProgress: (d) => progress.push(d) });
      assert.equal(second.reads, unique - 5, "the five read before are not read again");
      assert.equal(progress[0], 5, "progress starts from what was read before");
      assert.deepEqual([run.photos, run.proposals, run.readings], [unique, 3, unique * 3], "the proposals are those of a run that never stopped");

      // another reader (a new version of it) reads everything itself
      const other = { ...scripted(truth), readerName: "scripted/2", reads: 0 };
      other.readCard = async (img, sha) => {
        other.reads++;
        return second.readCard(img, sha);
      };
      await runProposals(t.archive, investigator, { sourceId: s.source, engine: other });
      assert.equal(other.reads, unique);
    } finally {
      await t.close();
    }
  });

  test(`proposing runs as a job with progress (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { dir, truth } = await demoCard(3, false);
    const t = await freshArchive(backend);
    try {
      await ensureAccounts(t.archive, [investigator]);
      const s = await ingestCard(t.archive, operatorActor(), { path: dir });
      registerCatalogueJobs(t.archive, { engine: async () => scripted(truth) });
      const { jobId } = await proposeGroupings(t.archive, investigator, { sourceId: s.source });
      assert.equal((await proposeGroupings(t.archive, investigator, { sourceId: s.source })).jobId, jobId, "one job per source at a time");
      assert.equal(await t.archive.jobs.work({ once: true }), 1);
      const job = await t.archive.jobs.get(jobId);
      assert.equal(job.status, "done", job.error ?? "");
      assert.equal(job.progress.done, job.progress.total);
      assert.equal((job.result as { proposals: number }).proposals, 3);
      assert.equal((await listProposals(t.archive, investigator, { sourceId: s.source })).items[0]!.runId, jobId);
      await assert.rejects(proposeGroupings(t.archive, as("forensic_reviewer"), { sourceId: s.source }), Forbidden);
    } finally {
      await t.close();
    }
  });
}

const [sqliteLeg] = await backends();
test("the archive's own engine reads a one-body card offline and proposes one body with its numbers", { skip: sqliteLeg!.skip, timeout: 180_000 }, async () => {
  const { dir, truth } = await demoCard(1, false, "engine");
  const t = await freshArchive(sqliteLeg!.backend);
  try {
    const s = await ingestCard(t.archive, operatorActor(), { path: dir });
    const run = await runProposals(t.archive, investigator, { sourceId: s.source });
    assert.equal(run.proposals, 1);
    const [p] = (await listProposals(t.archive, investigator, { sourceId: s.source })).items;
    const body = await acceptProposal(t.archive, investigator, { proposalId: p!.id });
    const want = truth.bodies[0]!;
    // The body carries what the proposal read (the reader's accuracy is measured by the OCR tests and the bench).
    assert.deepEqual(
      body.numbers.map((n) => [n.role, n.valueNorm, n.method]),
      p!.numbers.map((n) => [n.role, n.valueNorm, "ocr"]),
    );
    assert.deepEqual([body.detaineeNoNorm, body.branchNoNorm], [want.detainee_no, want.branch_no]);
    assert.equal(body.photos.length, new Set(truth.photos.map((x) => x.sha256)).size);
    // Each stored reading keeps what it rests on: the card's region in the photo, its label and OCR confidence.
    const stored = await readingsOf(t.archive, investigator, body.photos[0]!.sha256);
    assert.ok(stored.length > 0);
    for (const r of stored) {
      assert.ok(r.evidence, `${r.role}: evidence stored`);
      assert.ok(r.evidence.cardScore > 0.5 && r.evidence.region.width > 0 && r.evidence.region.width < 1, JSON.stringify(r.evidence));
      assert.ok(r.evidence.ocrConfidence > 0 && r.evidence.ocrConfidence <= 1);
    }
  } finally {
    await t.close();
  }
});
