import { test } from "node:test";
import assert from "node:assert/strict";
import type { Actor } from "../../src/core/actor.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { addItem, addRegion, approveExhibition, createExhibition, metadataFindings, publishExhibition, reviewItem, submitExhibition, withdrawExhibition } from "../../src/exhibitions/index.ts";
import { createReport, decide, rerank, setConsent } from "../../src/families/index.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { caseworker, REPORT, seedMatchingBody, seedPhoto } from "../support/casework.ts";

const author: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
const second: Actor = { kind: "user", id: "usr_curator_b", role: "curator" };
const [sqlite] = await backends();

test("dalil serves a published exhibition to anyone at /exhibitions/<ref>/; a withdrawn consent takes the item down at the next request; a withdrawn exhibition is gone", { skip: sqlite!.skip, timeout: 120_000 }, async () => {
  const t = await freshArchive(sqlite!.backend);
  const http = await buildHttpApp(t.archive);
  try {
    const a = t.archive;
    const plain = await seedPhoto(a, 4);
    const body = await seedMatchingBody(a, 11);
    const r = await createReport(a, caseworker, REPORT);
    await setConsent(a, caseworker, r.id, "dataSharing", true);
    await setConsent(a, caseworker, r.id, "publicDisplay", true);
    await rerank(a, caseworker, { reportId: r.id });
    await decide(a, caseworker, { report: r.ref, bodyId: body.id, status: "confirmed", reason: "identified" });
    const ex = await createExhibition(a, author, { title: { ar: "معرض عام", en: "Public" }, languages: ["ar", "en"] });
    const i1 = await addItem(a, author, { exhibition: ex.id, kind: "photo", sha256: plain, caption: { en: "Unidentified man", ar: "رجل مجهول" } });
    await addRegion(a, author, { item: i1.id, layer: "faces", x: 110, y: 40, w: 180, h: 220 });
    const i2 = await addItem(a, author, { exhibition: ex.id, kind: "body", body: body.ref, sha256: body.face, caption: { en: "Named with his family's consent" } });
    await submitExhibition(a, author, ex.id);
    for (const it of [i1, i2]) await reviewItem(a, second, { item: it.id });
    await approveExhibition(a, second, ex.id);

    assert.equal((await http.app.inject({ url: "/exhibitions/X-0001/" })).statusCode, 404, "not before publication");
    await publishExhibition(a, second, ex.id);
    const door = await http.app.inject({ url: "/exhibitions/X-0001/" });
    assert.equal(door.statusCode, 200);
    assert.match(String(door.headers["content-type"]), /^text\/html/);
    assert.match(String(door.headers["content-security-policy"]), /default-src 'none'/);
    assert.match(door.body, /Content warning/);
    assert.match(door.body, /تنبيه بشأن المحتوى/);
    const en = await http.app.inject({ url: "/exhibitions/X-0001/en.html" });
    assert.equal(en.statusCode, 200);
    assert.match(en.body, /Named with his family&#39;s consent/);
    assert.equal((en.body.match(/<img /g) ?? []).length, 2);
    const img = await http.app.inject({ url: "/exhibitions/X-0001/images/002.jpg" });
    assert.equal(img.statusCode, 200);
    assert.equal(img.headers["content-type"], "image/jpeg");
    assert.deepEqual(metadataFindings(img.rawPayload), []);
    const manifest = await http.app.inject({ url: "/exhibitions/X-0001/manifest.json" });
    assert.deepEqual((manifest.json() as { images: { sha256: string }[] }).images.map((m) => m.sha256), [plain, body.face]);
    assert.equal((await http.app.inject({ url: "/exhibitions/X-0001/..%2Fetc%2Fpasswd" })).statusCode, 422);

    await setConsent(a, caseworker, r.id, "publicDisplay", false);
    const after = await http.app.inject({ url: "/exhibitions/X-0001/en.html" });
    assert.doesNotMatch(after.body, /Named with his family&#39;s consent/, "taken down at the next request");
    assert.equal((after.body.match(/<img /g) ?? []).length, 1);
    assert.equal((await http.app.inject({ url: "/exhibitions/X-0001/images/002.jpg" })).statusCode, 404);

    await withdrawExhibition(a, author, ex.id);
    assert.equal((await http.app.inject({ url: "/exhibitions/X-0001/en.html" })).statusCode, 404);
  } finally {
    await http.app.close();
    await t.close();
  }
});
