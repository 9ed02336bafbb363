import { test } from "node:test";
import assert from "node:assert/strict";
import { isSensitiveField, isSensitiveMetadataField, sensitiveMetadataPaths } from "../../src/core/sensitive-fields.ts";
import { withoutSensitiveFields } from "../../src/access/sensitive-metadata.ts";

test("intake marks every field a reader hides by name, so the stored marks and the readers' list cannot drift", () => {
  const parsed = {
    ifd0: { Make: "Canon", Model: "EOS", Artist: "someone", HostComputer: "pc-1", XPAuthor: "x" },
    exif: { BodySerialNumber: "0012345", ShutterCount: 812, ImageUniqueID: "abc", ExposureTime: 0.01, CameraID: "c" },
    xmp: { dc: { creator: "someone", format: "image/jpeg" }, aux: { Lens: "50mm" }, photoshop: { Source: "agency" } },
    gps: { GPSLatitude: 33.5 },
  };
  const marked = sensitiveMetadataPaths(parsed);
  for (const [block, fields] of Object.entries(parsed)) {
    for (const [k, v] of Object.entries(fields as Record<string, unknown>)) {
      const leaves = v && typeof v === "object" ? Object.keys(v).map((kk) => `${block}.${k}.${kk}`) : [`${block}.${k}`];
      for (const path of leaves) {
        const name = path.split(".").pop()!;
        if (isSensitiveField(name)) assert.ok(marked.includes(path), `${path} is hidden by readers and marked by intake`);
      }
    }
  }
  for (const p of ["exif.ShutterCount", "exif.CameraID", "xmp.aux.Lens", "xmp.photoshop.Source", "gps.GPSLatitude", "ifd0.XPAuthor"]) assert.ok(marked.includes(p), p);
  for (const p of ["ifd0.Make", "ifd0.Model", "exif.ExposureTime", "xmp.dc.format"]) assert.ok(!marked.includes(p), p);
  assert.deepEqual(marked, [...marked].sort());
});

test("the wider reach is for a photograph's own metadata: an event's source id or title stays in a record", () => {
  assert.equal(isSensitiveMetadataField("Source"), true);
  assert.equal(isSensitiveMetadataField("Title"), true);
  assert.equal(isSensitiveField("source"), false);
  assert.deepEqual(withoutSensitiveFields({ source: "src_1", title: "Case 4", path: "/media/NAME/DCIM", serial: "123" }), { source: "src_1", title: "Case 4" });
});
