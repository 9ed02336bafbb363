import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { english, MESSAGES } from "../../src/core/messages.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { reasonKeyOf } from "../../src/db/migrations/0018-reasons-as-keys.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

/**
 * Quarantine reasons and intake warnings are stored as message keys with parameters beside their English text
 * (so the intake and photo screens word them in the reader's language), and migration 0018 gives the reasons
 * older archives stored the key their text was written from, leaving any other text as it is.
 */
for (const { backend, skip } of await backends()) {
  test(`a quarantined file's reason is stored as a key with parameters, its English text worded from it, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const a = await freshArchive(backend);
    try {
      const dir = mkdtempSync(join(tmpdir(), "dalil-qkeys-"));
      mkdirSync(join(dir, "DCIM"));
      writeFileSync(join(dir, "DCIM", "EMPTY.JPG"), "");
      writeFileSync(join(dir, "DCIM", "NOTE.JPG"), "%PDF-1.4\nthis is not a photograph\n");
      const s = await ingestCard(a.archive, operatorActor(), { path: dir, label: "reasons" });
      assert.equal(s.quarantined, 2);
      const rows = await a.archive.db.db.selectFrom("sightings").selectAll().orderBy("path").execute();
      for (const r of rows) {
        assert.ok(r.reason_key && r.reason_key in MESSAGES, `${r.path}: a key (${r.reason_key})`);
        assert.equal(r.reason, english(r.reason_key, JSON.parse(r.reason_params!) as Record<string, string | number>), "the English text is the key's English words");
      }
      const empty = rows.find((r) => r.path.endsWith("EMPTY.JPG"))!;
      assert.deepEqual([empty.reason_key, empty.reason], ["quarantine.empty", "the file is empty (0 bytes)"]);
      const originals = await a.archive.db.db.selectFrom("originals").selectAll().where("status", "=", "quarantined").execute();
      assert.equal(originals.length, 2);
      for (const o of originals) assert.ok(o.quarantine_key?.startsWith("quarantine."), `original ${o.sha256.slice(0, 8)}: ${o.quarantine_key}`);
    } finally {
      await a.close();
    }
  });
}

test("migration 0018 maps the reasons the archive wrote to their keys and leaves other texts without one", () => {
  const cases: [string, string, Record<string, string | number>][] = [
    ["the file is empty (0 bytes)", "quarantine.empty", {}],
    ["named like an image (.jpg) but its bytes are pdf (document)", "quarantine.namedLikeImage", { ext: ".jpg", format: "pdf", mediaKind: "document" }],
    ["named like an image (.jpg) but its bytes are not a recognised format", "quarantine.namedLikeImageUnknown", { ext: ".jpg" }],
    ["The image declares 30000×30000 pixels (900 megapixels), more than the 100 megapixels the archive decodes; it was not decoded.", "media.megapixels", { width: 30000, height: 30000, megapixels: "900", max: 100 }],
    ["The image data is damaged and cannot be decoded (VipsJpeg: bad Huffman table).", "media.damaged", { problem: "VipsJpeg: bad Huffman table" }],
  ];
  for (const [text, key, params] of cases) {
    const k = reasonKeyOf(text);
    assert.ok(k, text);
    assert.equal(k.key, key);
    assert.deepEqual(JSON.parse(k.params), params);
    // The mapping is right only if the key's English words give the same text back.
    assert.equal(english(k.key, JSON.parse(k.params) as Record<string, string | number>), text);
  }
  assert.equal(reasonKeyOf("Its name \"..\\x\" escapes the card; it was not extracted."), null, "a reader's own refusal keeps its text");
});
