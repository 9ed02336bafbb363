import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser, issueSession } from "../../src/access/index.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { browserSkip, openBrowser, shot, startDalil, type DalilServer } from "../support/browser.ts";

/**
 * A camera's time is shown as the camera recorded it, whatever zone the browser is in: a photo taken at
 * 08:33+03:00 shows 08:33 (with its offset) in a browser set to UTC and to New York, and one without an offset
 * shows its 09:41 in both.
 */
const skip = browserSkip();

async function photo(when: string, offset: string | null, shade: number): Promise<Buffer> {
  return sharp({ create: { width: 320, height: 240, channels: 3, background: { r: shade, g: 90, b: 120 } } })
    .jpeg()
    .withExif({ IFD0: { Make: "NIKON CORPORATION", Model: "NIKON D90" }, IFD2: { DateTimeOriginal: when, ...(offset ? { OffsetTimeOriginal: offset } : {}) } })
    .toBuffer();
}

test("a capture time shows the camera's clock in a browser in UTC and in New York", { skip, timeout: 240_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-times-"));
  const dataDir = join(work, "data");
  const card = join(work, "card", "DCIM", "100NCD90");
  let server: DalilServer | null = null;
  try {
    mkdirSync(card, { recursive: true });
    const zoned = await photo("2012:05:06 08:33:00", "+03:00", 60);
    const plain = await photo("2012:05:06 09:41:00", null, 160);
    writeFileSync(join(card, "DSC_0001.JPG"), zoned);
    writeFileSync(join(card, "DSC_0002.JPG"), plain);
    let token = "";
    const shas: string[] = [];
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ingestCard(archive, operatorActor(), { path: join(work, "card"), label: "times" });
      const rows = await archive.db.db.selectFrom("originals").select(["sha256", "capture_time"]).orderBy("capture_time").execute();
      assert.deepEqual(rows.map((r) => r.capture_time), ["2012-05-06T08:33:00+03:00", "2012-05-06T09:41:00"], "stored as the camera wrote them");
      shas.push(...rows.map((r) => r.sha256));
      const { user } = await addUser(archive, operatorActor(), { email: "times@example.org", role: "investigator" });
      token = (await archive.db.transaction((tx) => issueSession(tx, archive.clock, user.id, "full"))).token;
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;
    for (const zone of ["UTC", "America/New_York"]) {
      await t.test(`in ${zone}`, async () => {
        const b = await openBrowser({ locale: "en-GB", timezoneId: zone });
        try {
          await b.context.addCookies([{ name: "dalil_session", value: token, url: base }]);
          assert.equal(await b.page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone"), zone === "UTC" ? "UTC" : zone);
          const captured = async (sha: string): Promise<string> => {
            await b.page.goto(`${base}/photo/${sha}`);
            const dd = b.page.locator(".pair", { hasText: "Captured" }).locator("dd");
            await dd.waitFor();
            return (await dd.textContent()) ?? "";
          };
          assert.equal(await captured(shas[0]!), "6 May 2012, 08:33:00 (GMT+3)");
          await shot(b.page, `times-${zone.replace("/", "-")}`);
          assert.equal(await captured(shas[1]!), "6 May 2012, 09:41:00");
          assert.deepEqual(b.problems, []);
        } finally {
          await b.close();
        }
      });
    }
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
