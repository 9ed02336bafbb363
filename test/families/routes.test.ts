import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import type { Actor } from "../../src/core/actor.ts";
import { JOB_RERANK } from "../../src/families/index.ts";
import { JOB_WATCH_BODIES } from "../../src/families/watch.ts";
import type { ReportView } from "../../src/families/reports.ts";
import type { CandidateView } from "../../src/families/matching.ts";
import type { DisclosureView, FlagView } from "../../src/families/disclosure.ts";
import type { PortalReport } from "../../src/families/portal.ts";
import type { DuplicateView } from "../../src/families/duplicates.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody } from "../support/casework.ts";

for (const { backend, skip } of await backends()) {
  test(`families over HTTP: a report filed by a family, ranked by the job, decided, disclosed and seen in the portal (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    const actors = new Map<string, Actor>([["cw", caseworker]]);
    const http = await buildHttpApp(a, { actorFor: (req) => actors.get(String(req.headers["x-test-actor"] ?? "")) });
    const call = async <T>(who: string, method: "GET" | "POST" | "PUT", url: string, body?: unknown, status = 200): Promise<T> => {
      const r = await http.app.inject({ method, url, headers: { "x-test-actor": who, ...(method === "GET" ? {} : { origin: "http://localhost" }) }, ...(body !== undefined ? { payload: body as object } : {}) });
      assert.equal(r.statusCode, status, `${method} ${url} as ${who}: ${r.body}`);
      return (String(r.headers["content-type"] ?? "").startsWith("application/json") ? r.json() : r.rawPayload) as T;
    };
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const other = await familyMember(a, "other");
      actors.set("mother", mother).set("other", other);

      // the family files online; the re-rank job and the body watcher are enqueued
      const report = await call<ReportView>("mother", "POST", "/api/families/reports", { ...REPORT, consent: { viewingPhotos: true } });
      assert.equal(report.filedBy, mother.id);
      assert.equal(report.status, "submitted", "a family's report waits for a caseworker");
      await call("mother", "POST", "/api/families/reports", { nameAr: "x", sex: "unknown" }, 422);
      assert.equal((await a.jobs.list({ status: "queued", kind: JOB_RERANK })).length, 0, "not matched before a caseworker reads it");
      const waiting = await call<{ id: string; kind: string; reportRef: string }[]>("cw", "GET", "/api/families/proposals");
      assert.deepEqual(waiting.map((w) => [w.kind, w.reportRef]), [["new", report.ref]]);
      await call("mother", "GET", "/api/families/proposals", undefined, 403);
      await call("cw", "POST", `/api/families/proposals/${waiting[0]!.id}/accept`, {});
      const kinds = (await a.jobs.list({ status: "queued" })).map((j) => j.kind);
      assert.ok(kinds.includes(JOB_RERANK) && kinds.includes(JOB_WATCH_BODIES), kinds.join(", "));
      await call("mother", "GET", `/api/families/reports/${report.id}/candidates`, undefined, 403);
      // run the queue: candidates appear for the caseworker
      while (await a.jobs.work({ once: true })) {
        /* the watcher re-enqueues itself a minute ahead, so the loop ends */
      }
      const cands = await call<{ candidates: CandidateView[] }>("cw", "GET", `/api/families/reports/${report.ref}/candidates?top=3`);
      assert.equal(cands.candidates[0]?.bodyId, body.id);
      // the family's change goes to the caseworker first; accepted, it is a re-rank too
      await call("mother", "PUT", `/api/families/reports/${report.id}`, { branch: "215" }, 409);
      const proposed = await call<{ id: string; fields: string[]; status: string }>("mother", "POST", `/api/portal/reports/${report.id}/proposals`, { fields: { branch: "215" } });
      assert.deepEqual([proposed.fields, proposed.status], [["branch"], "proposed"]);
      await call("cw", "POST", `/api/families/proposals/${proposed.id}/accept`, {});
      const edited = await call<ReportView>("cw", "GET", `/api/families/reports/${report.id}`);
      assert.equal(edited.branch, "215");
      assert.ok((await a.jobs.list({ status: "queued", kind: JOB_RERANK })).length >= 1);

      await call("cw", "POST", `/api/families/reports/${report.id}/decisions`, { bodyId: body.id, status: "probable", reason: "marks and period agree" });
      const s1 = await call<DisclosureView>("cw", "POST", `/api/families/reports/${report.id}/disclosures`, { bodyId: body.id, stage: "text", text: "We would like to meet you.", consentNote: "phone", reason: "r" });
      const previewed = await call<{ id: string; sha256: string }>("cw", "POST", `/api/families/reports/${report.id}/face-previews`, { bodyId: body.ref, photo: body.face, region: { cx: 0.5, cy: 0.5, size: 0.7 } });
      const seen = await call<Buffer>("cw", "GET", `/api/families/face-previews/${previewed.id}/image`);
      const s2 = await call<DisclosureView>("cw", "POST", `/api/families/reports/${report.id}/disclosures`, { bodyId: body.id, stage: "blurred_face", text: "A blurred image.", consentNote: "in person", reason: "r", preview: previewed.id });
      assert.equal(s1.recipientId, mother.id);

      const mine = await call<PortalReport>("mother", "GET", `/api/portal/reports/${report.ref}`);
      assert.equal(mine.matches.length, 1);
      assert.equal(mine.matches[0]!.images[0]!.id, s2.id);
      const jpeg = await call<Buffer>("mother", "GET", `/api/portal/images/${s2.id}`);
      assert.equal(jpeg.subarray(0, 2).toString("hex"), "ffd8");
      assert.ok(Buffer.from(jpeg).equals(Buffer.from(seen)), "the family is served the crop the caseworker saw");
      await call("other", "GET", `/api/portal/images/${s2.id}`, undefined, 404);
      await call("other", "GET", `/api/portal/reports/${report.ref}`, undefined, 404);
      await call("other", "GET", `/api/families/reports/${report.ref}`, undefined, 404);
      await call("cw", "GET", "/api/portal/reports", undefined, 403);

      const req = await call<{ id: string }>("mother", "POST", `/api/portal/reports/${report.id}/requests`, { matchId: mine.matches[0]!.matchId, unblurred: false });
      const flags = await call<FlagView[]>("cw", "GET", "/api/families/flags");
      assert.ok(flags.some((f) => f.kind === "view-request" && f.reportRef === report.ref));
      await call("cw", "POST", `/api/families/requests/${req.id}/decline`, { reason: "not yet; first a meeting" });
      const withdrawn = await call<PortalReport["report"]>("mother", "POST", `/api/portal/reports/${report.id}/consent`, { tier: "viewingPhotos", given: false });
      assert.equal(withdrawn.consent.viewingPhotos?.given, false);
      await call("mother", "GET", `/api/portal/images/${s2.id}`, undefined, 403);

      // duplicates over HTTP
      await call("cw", "POST", "/api/families/reports", { nameLat: "Mohamed Ahmed al-Khatib", sex: "male", birthDate: "1985", arrestDate: "2012" });
      const scan = await call<{ proposed: number; proposals: DuplicateView[] }>("cw", "POST", "/api/families/duplicates/scan");
      assert.equal(scan.proposed, 1);
      const listed = await call<DuplicateView[]>("cw", "GET", "/api/families/duplicates");
      assert.equal(listed[0]!.id, scan.proposals[0]!.id);
      await call("mother", "POST", `/api/families/duplicates/${listed[0]!.id}/accept`, {}, 403);
      const merged = await call<{ survivor: ReportView; merged: ReportView }>("cw", "POST", `/api/families/duplicates/${listed[0]!.id}/accept`, { reason: "same person" });
      assert.equal(merged.survivor.id, report.id);
      assert.equal((await call<DuplicateView[]>("cw", "GET", "/api/families/duplicates")).length, 0);
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
