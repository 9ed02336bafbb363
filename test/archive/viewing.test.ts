import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { blurredRendition, downloadOriginalFile, galleryPage, logStatus, originalHistory, originalMetadata, revealRendition, sourceSightings } from "../../src/archive/viewing.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { anonymousActor } from "../../src/access/index.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const archivist: Actor = { kind: "user", id: "usr_archivistaaaaaaaaaaaaaaaaaa", role: "archivist" };
const investigator: Actor = { kind: "user", id: "usr_investigatoraaaaaaaaaaaaaa", role: "investigator" };
const curator: Actor = { kind: "user", id: "usr_curatoraaaaaaaaaaaaaaaaaaa", role: "curator" };

async function bytesOf(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

for (const { backend, skip } of await backends()) {
  test(`what the web app shows: gallery pages, blurred by default, reveals logged before bytes, metadata by role (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const { dir, truth } = await demoCard(2, true, "viewing");
    const a = await freshArchive(backend);
    const ctx = a.archive;
    try {
      const summary = await ingestCard(ctx, operatorActor(), { path: dir, label: "viewing card" });

      // The gallery: every original (not the medium), in capture order, by offset; pages join up exactly.
      const all = await galleryPage(ctx, investigator, { offset: 0, limit: 500 });
      const originals = await ctx.db.db.selectFrom("originals").select("sha256").where("media_kind", "!=", "medium").execute();
      assert.equal(all.total, originals.length);
      const paged = [...(await galleryPage(ctx, investigator, { offset: 0, limit: 5 })).items, ...(await galleryPage(ctx, investigator, { offset: 5, limit: 500 })).items];
      assert.deepEqual(paged.map((i) => i.sha256), all.items.map((i) => i.sha256));
      const times = all.items.map((i) => i.captureTime).filter((x): x is string => x !== null);
      assert.deepEqual(times, [...times].sort(), "capture order, undated ones last");
      assert.ok(all.items.slice(times.length).every((i) => i.captureTime === null));
      const quarantined = await galleryPage(ctx, investigator, { offset: 0, limit: 500, status: "quarantined" });
      const stored = await ctx.db.db.selectFrom("originals").select("sha256").where("status", "=", "quarantined").where("media_kind", "!=", "medium").execute();
      assert.ok(stored.length > 0);
      assert.equal(quarantined.total, stored.length);
      assert.ok(quarantined.items.every((i) => i.status === "quarantined"));
      await assert.rejects(galleryPage(ctx, anonymousActor, { offset: 0, limit: 10 }));

      const photo = truth.photos[0]!;
      const item = all.items.find((i) => i.sha256 === photo.sha256)!;
      assert.ok(item.blurred, "a photograph has a blurred rendition");

      // Blurred only, without a reveal; the refusal says how to reveal.
      const blurred = await blurredRendition(ctx, curator, photo.sha256, "blurred");
      const blurredBytes = await bytesOf(blurred.stream);
      assert.equal(createHash("sha256").update(blurredBytes).digest("hex"), blurred.sha256);
      assert.equal(blurred.mime, "image/jpeg");
      for (const kind of ["preview", "thumbnail", "original"]) {
        await assert.rejects(blurredRendition(ctx, investigator, photo.sha256, kind), (e: unknown) => e instanceof Forbidden && /reveal/.test(e.message));
      }
      await assert.rejects(blurredRendition(ctx, investigator, "0".repeat(64), "blurred"), NotFound);

      // A reveal needs the role and a reason, and is in the log before the bytes are read.
      const before = await ctx.log.size();
      await assert.rejects(revealRendition(ctx, curator, { sha256: photo.sha256, kind: "preview", reason: "curiosity" }), Forbidden);
      await assert.rejects(revealRendition(ctx, investigator, { sha256: photo.sha256, kind: "preview", reason: " " }), Invalid);
      await assert.rejects(revealRendition(ctx, investigator, { sha256: "0".repeat(64), kind: "preview", reason: "match the card number" }), NotFound);
      assert.equal(await ctx.log.size(), before, "refused reveals log nothing");
      const r = await revealRendition(ctx, investigator, { sha256: photo.sha256, kind: "preview", reason: "match the card number" });
      assert.equal(await ctx.log.size(), before + 1);
      const preview = await bytesOf(r.stream);
      assert.equal(createHash("sha256").update(preview).digest("hex"), r.sha256);
      assert.notEqual(r.sha256, blurred.sha256);
      const o = await downloadOriginalFile(ctx, investigator, { sha256: photo.sha256, reason: "hash it myself" });
      assert.equal(createHash("sha256").update(await bytesOf(o.stream)).digest("hex"), photo.sha256, "the original, byte for byte");
      assert.match(o.filename, new RegExp(`^${photo.sha256}\\.jpe?g$`));

      // Its custody history names the reveals, with their reasons, after its arrival.
      const history = await originalHistory(ctx, investigator, photo.sha256);
      const types = history.events.map((e) => e.type);
      assert.equal(types[0], "ingestion");
      // Looking at a photograph and a file leaving the archive are different acts, told apart by their type.
      const reveals = history.events.filter((e) => e.type === "revealed graphic image");
      assert.deepEqual(reveals.map((e) => e.detail.reason), ["match the card number"]);
      const downloads = history.events.filter((e) => e.type === "downloaded original");
      assert.deepEqual(downloads.map((e) => e.detail.reason), ["hash it myself"]);
      assert.equal(downloads[0]!.seq, o.grant.seq);
      await assert.rejects(downloadOriginalFile(ctx, curator, { sha256: photo.sha256, reason: "take a copy" }), Forbidden);
      assert.equal(reveals[0]!.actor.id, investigator.id);
      assert.equal(reveals[0]!.seq, r.grant.seq);
      // Paths on the medium are sensitive: an investigator's view of the history has none, an archivist's has them.
      assert.equal(history.events[0]!.detail.path, undefined);
      assert.equal((await originalHistory(ctx, archivist, photo.sha256)).events[0]!.detail.path, photo.path);

      // Metadata: the camera's serial number and owner fields only for roles cleared for them.
      const full = await originalMetadata(ctx, archivist, photo.sha256);
      const limited = await originalMetadata(ctx, investigator, photo.sha256);
      const fullText = JSON.stringify(full.parsed);
      const limitedText = JSON.stringify(limited.parsed);
      assert.equal(full.hidden, false);
      assert.equal(limited.hidden, true);
      assert.ok(fullText.includes(truth.camera.serial), "the archivist sees the serial number");
      assert.ok(!limitedText.includes(truth.camera.serial), "the investigator does not");
      assert.ok(fullText.includes(truth.camera.artist), "and the artist / owner name");
      assert.ok(!limitedText.includes(truth.camera.artist), "nor the artist / owner name");
      assert.ok(limitedText.includes(truth.camera.model), "the rest stays visible");

      // A source's sightings: the quarantined ones with reasons; paths only for cleared roles.
      const q = await sourceSightings(ctx, investigator, { source: summary.source, outcome: "quarantined", offset: 0, limit: 100 });
      assert.equal(q.total, summary.quarantined);
      assert.ok(q.items.every((s) => s.outcome === "quarantined" && (s.reason ?? "").length > 5 && s.path === undefined));
      const qa = await sourceSightings(ctx, archivist, { source: summary.source, outcome: "quarantined", offset: 0, limit: 100 });
      assert.ok(qa.items.every((s) => typeof s.path === "string"));
      assert.equal((await sourceSightings(ctx, archivist, { source: summary.source, offset: 0, limit: 1000 })).total, summary.files);
      await assert.rejects(sourceSightings(ctx, archivist, { source: "src_none", offset: 0, limit: 10 }), NotFound);

      // The log's status, for anyone: its checkpoint, and the last verification once one ran.
      const s1 = await logStatus(ctx, anonymousActor);
      assert.ok(s1.checkpoint && s1.checkpoint.size > 0);
      assert.equal(s1.lastVerify, null);
      assert.ok(s1.events >= s1.checkpoint.size);
      assert.equal(s1.verifierKey, ctx.tree.verifierKey);
      assert.deepEqual((await verifyArchive(ctx, operatorActor())).findings, []);
      const s2 = await logStatus(ctx, anonymousActor);
      assert.equal(s2.lastVerify?.outcome, "success");
      assert.ok((s2.lastVerify?.checked ?? 0) > 0);
    } finally {
      await a.close();
    }
  });
}
