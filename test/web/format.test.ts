import { test } from "node:test";
import assert from "node:assert/strict";
import { makeFormat } from "../../web/src/i18n/format.ts";

/**
 * A camera's time is shown as the camera wrote it, whatever the viewer's time zone. Node re-reads TZ when it is
 * set, so each zone is a fresh formatter under a different process zone (a browser in New York, one in UTC).
 */
const ZONES = ["UTC", "America/New_York", "Asia/Tokyo"];

function inZone<T>(zone: string, f: () => T): T {
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    assert.equal(Intl.DateTimeFormat().resolvedOptions().timeZone.replace("Etc/", ""), zone, "the process zone took effect");
    return f();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

test("a camera's 08:33+03:00 shows 08:33 with its offset, and 08:33 without one, in every viewer's zone", () => {
  for (const zone of ZONES) {
    inZone(zone, () => {
      const en = makeFormat("en", "latn");
      assert.equal(en.wallClock("2024-03-05T08:33:00+03:00"), "5 Mar 2024, 08:33:00 (GMT+3)", zone);
      assert.equal(en.wallClock("2024-03-05T08:33:00.120+0300"), "5 Mar 2024, 08:33:00 (GMT+3)", zone);
      assert.equal(en.wallClock("2024-03-05T08:33:00"), "5 Mar 2024, 08:33:00", zone);
      assert.equal(en.wallClock("2024-03-05T23:33:00-05:30"), "5 Mar 2024, 23:33:00 (GMT\u22125:30)", zone);
      assert.equal(en.wallClock("2024-03-05T08:33:00Z"), "5 Mar 2024, 08:33:00 (GMT+0)", zone);
      assert.equal(en.wallDate("2024-03-05T23:33:00-05:00"), "5 Mar 2024", zone);
      const ar = makeFormat("ar", "arab");
      const shown = ar.wallClock("2024-03-05T08:33:00+03:00");
      assert.match(shown, /٨:٣٣:٠٠/, `${zone}: ${shown}`);
      assert.match(shown, /غرينتش\+٣/, `${zone}: ${shown}`);
      assert.doesNotMatch(shown, /[A-Za-z]/, "no Latin letters in the Arabic reading");
      assert.match(ar.wallClock("2024-03-05T08:33:00"), /٨:٣٣:٠٠/);
    });
  }
});

test("a camera time that is not a date is shown as written, not as a wrong date", () => {
  const en = makeFormat("en", "latn");
  assert.equal(en.wallClock("0000:00:00 00:00:00"), "0000:00:00 00:00:00");
  assert.equal(en.wallClock(null), "—");
});

test("the archive's own times carry the viewer's zone", () => {
  inZone("America/New_York", () => {
    assert.equal(makeFormat("en", "latn").dateTime("2024-03-05T08:33:00Z"), "5 Mar 2024, 03:33 (GMT-5)");
  });
});

test("a time left is said in the reader's language and digits", () => {
  const en = makeFormat("en", "latn");
  assert.equal(en.duration(42), "45 seconds");
  assert.equal(en.duration(12 * 60), "12 minutes");
  assert.equal(en.duration(80 * 60), "1 hour 20 minutes");
  const ar = makeFormat("ar", "arab");
  assert.match(ar.duration(12 * 60), /١٢/);
  assert.doesNotMatch(ar.duration(80 * 60), /[0-9]|hour|minute/);
});
