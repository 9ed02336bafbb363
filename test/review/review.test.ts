import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isCommitment, openEvent, openingsOf } from "../../src/ledger/openings.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, readyUser, seedOriginal, type TestArchive } from "../support/accounts.ts";
import { seedBodies, typed, investigator } from "../support/catalogue.ts";
import { editBody, getBody, recordHistory, type NewBody } from "../../src/catalogue/index.ts";
import { originalHistory } from "../../src/archive/viewing.ts";
import { revealOriginal } from "../../src/archive/reveals.ts";
import {
  agreementStats,
  assignSample,
  drawReviewSample,
  getReview,
  getSample,
  listDisagreements,
  myAssignments,
  resolveDisagreement,
  reviewsOfBody,
  submitReview,
  type Finding,
} from "../../src/review/index.ts";
import { canonicalJson } from "../../src/core/canonical-json.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import type { Actor } from "../../src/core/actor.ts";

const admin: Actor = { kind: "user", id: "usr_admin_r", role: "admin" };

async function catalogue(t: TestArchive, n: number, photo?: string): Promise<string[]> {
  const branches = ["215", "227", "235"];
  const bodies: NewBody[] = Array.from({ length: n }, (_, i) => ({
    photoDate: i % 2 ? "2012-05-10" : "2013-02-01",
    numbers: [typed("branch", branches[i % 3]!), typed("detainee", String(1000 + i))],
    ...(photo && i === 0 ? { photos: [{ sha256: photo }] } : {}),
  }));
  return (await seedBodies(t.ctx, investigator, bodies)).map((b) => b.id);
}

const find = (code: string, extra: Partial<Finding> = {}): Finding => ({ code, confidence: "probable", ...extra });

for (const { backend, skip } of await backends()) {
  test(`sample, blind double review, disagreement, resolution and kappa, with every step signed and logged (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      const r3 = await readyUser(t.ctx, "forensic_reviewer");
      await catalogue(t, 12);
      const before = await t.ctx.log.size();

      const sample = await drawReviewSample(t.ctx, investigator, { size: 6, seed: "s-2014", doubleShare: 0.5 });
      assert.equal(sample.population, 12);
      assert.equal(sample.doubles, 3);
      assert.equal(sample.strata.reduce((s, x) => s + x.allocated, 0), 6);
      assert.equal(sample.strata.length, 6, "3 branches × 2 months");
      const detail = await getSample(t.ctx, admin, sample.id);
      for (const it of detail.items) assert.equal((await getBody(t.ctx, admin, it.bodyId)).reviewStatus, "sampled");
      const appended = await t.ctx.log.eventsFor(sample.id);
      const openings = await openingsOf(t.ctx.db.db, appended.map((e) => e.seq));
      const drawn = appended.map((e) => openEvent(e.event, openings.get(e.seq)));
      assert.equal(drawn[0]!.type, "review");
      assert.ok(isCommitment(appended[0]!.event.detail.seed) && isCommitment(appended[0]!.event.detail.strata), "the seed typed and the strata are commitments in the leaf");
      assert.equal(drawn[0]!.detail.seed, "s-2014");
      assert.equal(drawn[0]!.actor.id, investigator.id);
      assert.ok((await t.ctx.log.size()) > before);

      const asg = await assignSample(t.ctx, investigator, { sampleId: sample.id, reviewers: [r1.id, r2.email] });
      assert.equal(asg.assigned, 9, "3 single + 3 double × 2");
      assert.deepEqual(Object.values(asg.perReviewer).sort(), [4, 5]);
      await assert.rejects(assignSample(t.ctx, investigator, { sampleId: sample.id, reviewers: [r1.id] }), Conflict);

      const list1 = await myAssignments(t.ctx, r1.actor);
      const list2 = await myAssignments(t.ctx, r2.actor);
      assert.equal(list1.length + list2.length, 9);
      const doubleItems = [...new Set(list1.filter((a) => a.double).map((a) => a.itemId))].filter((id) => list2.some((b) => b.itemId === id));
      assert.equal(doubleItems.length, 3, "each double item has both reviewers");

      // Item A: they agree. Item B: they disagree on "burn". Item C: only one submits for now.
      const [A, B, C] = doubleItems as [string, string, string];
      const mine = (list: typeof list1, item: string) => list.find((a) => a.itemId === item)!.id;
      const ra1 = await submitReview(t.ctx, r1.actor, { assignmentId: mine(list1, A), findings: [find("blunt_force"), find("emaciation", { confidence: "certain" })], causes: [{ code: "starvation", confidence: "probable" }], notes: "welts on the back" });
      // Blind: r2 cannot read r1's review of A before submitting their own.
      await assert.rejects(getReview(t.ctx, r2.actor, ra1.id), (e: unknown) => e instanceof Forbidden && /blind review/.test(e.message));
      const hidden = await reviewsOfBody(t.ctx, r2.actor, ra1.content.body);
      assert.equal(hidden.reviews.length, 0);
      assert.equal(hidden.hidden, 1);
      assert.equal((await getBody(t.ctx, admin, ra1.content.body)).reviewStatus, "in_review");
      await submitReview(t.ctx, r2.actor, { assignmentId: mine(list2, A), findings: [find("emaciation"), find("blunt_force")], causes: [{ code: "starvation", confidence: "certain" }] });
      assert.equal((await getReview(t.ctx, r2.actor, ra1.id)).id, ra1.id, "open once both are in");
      const bodyA = await getBody(t.ctx, admin, ra1.content.body);
      assert.equal(bodyA.reviewStatus, "reviewed");
      assert.deepEqual(bodyA.reviewFindings, ["blunt_force", "emaciation"]);

      // The signature: SHA-256 of the canonical JSON, in the custody event with the reviewer and time.
      assert.equal(ra1.sha256, createHash("sha256").update(canonicalJson(ra1.content)).digest("hex"));
      const ev = (await t.ctx.log.eventsFor(ra1.id)).map((e) => e.event).find((e) => e.detail.action === "review.submit")!;
      assert.equal(ev.type, "review");
      assert.equal(ev.detail.sha256, ra1.sha256);
      assert.equal(ev.detail.reviewer, r1.id);
      assert.equal(ev.detail.submittedAt, ra1.content.submittedAt);

      // Immutable: a second submission is refused unless it is a correction, which is a new version.
      await assert.rejects(submitReview(t.ctx, r1.actor, { assignmentId: mine(list1, A), findings: [find("burn")] }), Conflict);
      const corr = await submitReview(t.ctx, r1.actor, { assignmentId: mine(list1, A), findings: [find("blunt_force"), find("emaciation")], causes: [{ code: "starvation", confidence: "certain" }], correction: "confidence of emaciation overstated" });
      assert.equal(corr.content.version, 2);
      assert.equal(corr.content.supersedes, ra1.id);
      assert.equal((await getReview(t.ctx, admin, ra1.id)).sha256, ra1.sha256, "the first version is kept as signed");

      await submitReview(t.ctx, r1.actor, { assignmentId: mine(list1, B), findings: [find("blunt_force"), find("burn")] });
      await submitReview(t.ctx, r2.actor, { assignmentId: mine(list2, B), findings: [find("blunt_force")] });
      const disputes = await listDisagreements(t.ctx, r3.actor);
      assert.equal(disputes.length, 1);
      assert.deepEqual(disputes[0]!.disagreement.codes, ["burn"]);
      assert.equal((await getBody(t.ctx, admin, disputes[0]!.bodyId)).reviewStatus, "disputed");
      await submitReview(t.ctx, r1.actor, { assignmentId: mine(list1, C), findings: [find("ligature")] });

      // Resolution: a third reviewer who did not review it; one of the pair cannot be the "third".
      await assert.rejects(resolveDisagreement(t.ctx, r1.actor, { itemId: B, method: "third_reviewer", findings: ["blunt_force"], note: "x" }), Forbidden);
      const res = await resolveDisagreement(t.ctx, r3.actor, { itemId: B, method: "third_reviewer", findings: ["blunt_force", "burn"], note: "burn visible on the second photo" });
      assert.match(res.sha256, /^[0-9a-f]{64}$/);
      const bodyB = await getBody(t.ctx, admin, disputes[0]!.bodyId);
      assert.equal(bodyB.reviewStatus, "reviewed");
      assert.deepEqual(bodyB.reviewFindings, ["blunt_force", "burn"]);
      await assert.rejects(resolveDisagreement(t.ctx, r3.actor, { itemId: B, method: "consensus", findings: ["burn"], note: "again" }), Conflict);

      // Kappa over A (agree on blunt_force, emaciation) and B (agree blunt_force, differ on burn).
      const stats = await agreementStats(t.ctx, investigator, { sampleId: sample.id });
      assert.equal(stats.items, 2);
      const byCode = Object.fromEntries(stats.codes.map((c) => [c.code, c]));
      assert.deepEqual([byCode.blunt_force!.both, byCode.blunt_force!.kappa], [2, null], "all present: kappa undefined");
      assert.deepEqual([byCode.burn!.onlyA, byCode.burn!.neither], [1, 1]);
      // Pooled over 3 codes × 2 bodies: both 3, onlyA 1, onlyB 0, neither 2 → po 5/6, pe (4/6)(3/6)+(2/6)(3/6) = 1/2.
      assert.deepEqual([stats.pooled.both, stats.pooled.onlyA, stats.pooled.onlyB, stats.pooled.neither], [3, 1, 0, 2]);
      assert.ok(Math.abs(stats.pooled.kappa! - 2 / 3) < 1e-12);
      assert.equal(stats.overallMethod, "pooled");
      assert.equal(stats.counts.disputed, 0);
      assert.equal(stats.counts.resolved, 1);
    } finally {
      await t.close();
    }
  });

  test(`a reviewer who corrects towards the other's review after unblinding is marked as such, leaves the dispute standing, and kappa counts the first reviews (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      await catalogue(t, 1);
      await drawReviewSample(t.ctx, admin, { size: 1, seed: "honest", doubleShare: 1 });
      await assignSample(t.ctx, admin, { reviewers: [r1.id, r2.id] });
      const [a1] = await myAssignments(t.ctx, r1.actor);
      const [a2] = await myAssignments(t.ctx, r2.actor);
      await submitReview(t.ctx, r1.actor, { assignmentId: a1!.id, findings: [find("blunt_force"), find("burn")] });
      // a correction while still blind is an independent finding: not marked
      await submitReview(t.ctx, r1.actor, { assignmentId: a1!.id, findings: [find("blunt_force"), find("burn", { confidence: "certain" })], correction: "surer of the burn" });
      const first2 = await submitReview(t.ctx, r2.actor, { assignmentId: a2!.id, findings: [find("blunt_force")] });
      assert.equal((await listDisagreements(t.ctx, admin)).length, 1);
      // r2 now sees r1's review and "corrects" towards it
      const late = await submitReview(t.ctx, r2.actor, { assignmentId: a2!.id, findings: [find("blunt_force"), find("burn")], correction: "missed the burn" });
      assert.equal(late.content.afterUnblinding, true, "the correction says it was made after seeing the other review");
      const blindCorrection = (await reviewsOfBody(t.ctx, admin, a1!.bodyId)).reviews.find((r) => r.content.reviewer === r1.id && r.content.version === 2)!;
      assert.equal(blindCorrection.content.afterUnblinding, undefined);
      const ev = (await t.ctx.log.eventsFor(late.id)).map((e) => e.event).find((e) => e.detail.action === "review.submit")!;
      assert.equal(ev.detail.afterUnblinding, true);
      assert.equal((await listDisagreements(t.ctx, admin)).length, 1, "the dispute stands until a third reviewer or a consensus settles it");
      assert.equal((await getBody(t.ctx, admin, a1!.bodyId)).reviewStatus, "disputed");
      // agreement is on what each found first: burn by r1 only
      const stats = await agreementStats(t.ctx, admin);
      const burn = stats.codes.find((c) => c.code === "burn")!;
      assert.deepEqual([burn.both, burn.onlyA + burn.onlyB], [0, 1]);
      assert.ok(first2.content.version === 1);
    } finally {
      await t.close();
    }
  });

  test(`a prosecutor without clearance for a confidential body sees none of its reviews, in lists, counts or by id (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      const prosecutor: Actor = { kind: "user", id: "usr_pros_r", role: "prosecutor" };
      await catalogue(t, 2);
      const sample = await drawReviewSample(t.ctx, admin, { size: 2, seed: "clearance", doubleShare: 1 });
      await assignSample(t.ctx, admin, { reviewers: [r1.id, r2.id] });
      const [l1, l2] = [await myAssignments(t.ctx, r1.actor), await myAssignments(t.ctx, r2.actor)];
      const reviews = [];
      for (const a of l1) {
        reviews.push(await submitReview(t.ctx, r1.actor, { assignmentId: a.id, findings: [find("fracture"), find("burn")] }));
        await submitReview(t.ctx, r2.actor, { assignmentId: l2.find((x) => x.itemId === a.itemId)!.id, findings: [find("fracture")] });
      }
      const secret = reviews[0]!;
      await editBody(t.ctx, admin, { id: secret.content.body, sensitivity: "confidential" });
      await assert.rejects(getReview(t.ctx, prosecutor, secret.id), NotFound);
      assert.deepEqual(await reviewsOfBody(t.ctx, prosecutor, secret.content.body), { reviews: [], hidden: 0 }, "not even a count of hidden ones");
      assert.equal((await getSample(t.ctx, prosecutor, sample.id)).items.length, 1);
      const stats = await agreementStats(t.ctx, prosecutor, { sampleId: sample.id });
      assert.deepEqual([stats.items, stats.counts.disputed], [1, 1], "counts leave the confidential body out");
      assert.equal((await listDisagreements(t.ctx, r1.actor)).length, 1, "a forensic reviewer (restricted) is not told of its dispute");
      assert.equal((await myAssignments(t.ctx, r1.actor)).length, 1);
      assert.equal((await agreementStats(t.ctx, admin, { sampleId: sample.id })).items, 2, "an administrator sees both");
      assert.equal((await getReview(t.ctx, admin, secret.id)).id, secret.id);
    } finally {
      await t.close();
    }
  });

  test(`a blind reviewer reading the photo's custody history or the body's history learns nothing of the other's review or reveals before unblinding (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      const { sha256 } = await seedOriginal(t.ctx);
      const [bodyId] = await catalogue(t, 1, sha256);
      await drawReviewSample(t.ctx, admin, { size: 1, seed: "blind-history", doubleShare: 1 });
      await assignSample(t.ctx, admin, { reviewers: [r1.id, r2.id] });
      const [a1] = await myAssignments(t.ctx, r1.actor);
      const [a2] = await myAssignments(t.ctx, r2.actor);
      // r1 looks at the original (with a reason) and marks a burn on it
      await revealOriginal(t.ctx, r1.actor, { sha256, reason: "burn on the left shoulder?" });
      await submitReview(t.ctx, r1.actor, { assignmentId: a1!.id, findings: [find("burn", { regions: [{ photo: sha256, shape: "rect", x: 0.1, y: 0.1, w: 0.2, h: 0.2 }] })] });
      const byR1 = (events: { actor: { id: string } }[]) => events.filter((e) => e.actor.id === r1.id);
      assert.ok(byR1((await originalHistory(t.ctx, admin, sha256)).events).length >= 2, "the events are there");
      assert.deepEqual(byR1((await originalHistory(t.ctx, r2.actor, sha256)).events), [], "r2 sees neither r1's reveal nor r1's review event");
      assert.ok(!JSON.stringify(await originalHistory(t.ctx, r2.actor, sha256)).includes("shoulder"));
      assert.deepEqual((await recordHistory(t.ctx, r2.actor, bodyId!)).filter((h) => h.actor === r1.id), [], "nor what r1's submission wrote into the body's history");
      assert.ok((await recordHistory(t.ctx, admin, bodyId!)).some((h) => h.actor === r1.id));
      // once both are in, the history opens to both
      await submitReview(t.ctx, r2.actor, { assignmentId: a2!.id, findings: [find("burn")] });
      assert.ok(byR1((await originalHistory(t.ctx, r2.actor, sha256)).events).length >= 2);
      assert.ok((await recordHistory(t.ctx, r2.actor, bodyId!)).some((h) => h.actor === r1.id));
    } finally {
      await t.close();
    }
  });

  test(`both halves of a double review submitted together settle the body (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      await catalogue(t, 3);
      await drawReviewSample(t.ctx, admin, { size: 3, seed: "race", doubleShare: 1 });
      await assignSample(t.ctx, admin, { reviewers: [r1.id, r2.id] });
      const [l1, l2] = [await myAssignments(t.ctx, r1.actor), await myAssignments(t.ctx, r2.actor)];
      const work: Promise<unknown>[] = [];
      for (const a of l1) {
        const b = l2.find((x) => x.itemId === a.itemId)!;
        work.push(submitReview(t.ctx, r1.actor, { assignmentId: a.id, findings: [find("fracture")] }), submitReview(t.ctx, r2.actor, { assignmentId: b.id, findings: [find("fracture")] }));
      }
      await Promise.all(work);
      for (const a of l1) assert.equal((await getBody(t.ctx, admin, a.bodyId)).reviewStatus, "reviewed");
      assert.equal((await agreementStats(t.ctx, admin)).items, 3);
    } finally {
      await t.close();
    }
  });

  test(`policy: a curator cannot review, a reviewer cannot submit another's assignment, regions must be on the body's photos (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      const curator = await readyUser(t.ctx, "curator");
      const { sha256 } = await seedOriginal(t.ctx);
      await catalogue(t, 1, sha256);
      await assert.rejects(drawReviewSample(t.ctx, curator.actor, { size: 1, seed: "x" }), (e: unknown) => e instanceof Forbidden && /curator.*review\.sample/.test(e.message));
      await assert.rejects(drawReviewSample(t.ctx, r1.actor, { size: 1, seed: "x" }), Forbidden);
      await drawReviewSample(t.ctx, admin, { size: 1, seed: "x" });
      await assert.rejects(assignSample(t.ctx, admin, { reviewers: [curator.id] }), (e: unknown) => e instanceof Invalid && /no enabled forensic reviewer's account/.test(e.message));
      await assignSample(t.ctx, admin, { reviewers: [r1.id] });
      const [a] = await myAssignments(t.ctx, r1.actor);
      await assert.rejects(submitReview(t.ctx, curator.actor, { assignmentId: a!.id, findings: [find("burn")] }), (e: unknown) => e instanceof Forbidden && /curator.*review\.submit/.test(e.message));
      await assert.rejects(myAssignments(t.ctx, curator.actor), Forbidden);
      await assert.rejects(agreementStats(t.ctx, curator.actor), Forbidden);
      await assert.rejects(submitReview(t.ctx, r2.actor, { assignmentId: a!.id, findings: [find("burn")] }), (e: unknown) => e instanceof Forbidden && /assigned to another reviewer/.test(e.message));
      await assert.rejects(submitReview(t.ctx, r1.actor, { assignmentId: a!.id, findings: [find("not_a_code")] }), (e: unknown) => e instanceof Invalid && /finding vocabulary/.test(e.message));
      await assert.rejects(
        submitReview(t.ctx, r1.actor, { assignmentId: a!.id, findings: [find("burn", { regions: [{ photo: "f".repeat(64), shape: "rect", x: 0.1, y: 0.1, w: 0.2, h: 0.2 }] })] }),
        (e: unknown) => e instanceof Invalid && /not one of this body's photos/.test(e.message),
      );
      await assert.rejects(
        submitReview(t.ctx, r1.actor, { assignmentId: a!.id, findings: [find("burn", { regions: [{ photo: sha256, shape: "rect", x: 0.9, y: 0.1, w: 0.2, h: 0.2 }] })] }),
        (e: unknown) => e instanceof Invalid && /inside the image/.test(e.message),
      );
      const ok = await submitReview(t.ctx, r1.actor, {
        assignmentId: a!.id,
        findings: [find("burn_cigarette", { regions: [{ photo: sha256, shape: "rect", x: 0.1, y: 0.2, w: 0.3, h: 0.1 }, { photo: sha256, shape: "polygon", points: [[0.5, 0.5], [0.6, 0.5], [0.55, 0.6]] }] })],
        causes: [{ code: "undetermined", confidence: "possible" }],
      });
      const ev = (await t.ctx.log.eventsFor(ok.id)).map((e) => e.event).find((e) => e.detail.action === "review.submit")!;
      assert.ok(ev.objects.some((o) => o.sha256 === sha256 && o.role === "examined photo"));
      const body = await getBody(t.ctx, admin, ok.content.body);
      assert.equal(body.reviewStatus, "reviewed", "a single review settles the body");
      assert.deepEqual(body.reviewFindings, ["burn_cigarette"]);
      // A single review is not blind: a colleague may read it.
      assert.equal((await getReview(t.ctx, r2.actor, ok.id)).id, ok.id);
    } finally {
      await t.close();
    }
  });
}
