import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Actor } from "../../src/core/actor.ts";
import { addItem, approveExhibition, createExhibition, exportExhibition, publishExhibition, reviewItem, showExhibition, submitExhibition } from "../../src/exhibitions/index.ts";
import { Manifest } from "../../src/exhibitions/contracts.ts";
import { backends, tempDir } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";

const author: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
const second: Actor = { kind: "user", id: "usr_curator_b", role: "curator" };

function tree(dir: string, base = ""): string[] {
  return readdirSync(join(dir, base)).sort().flatMap((n) => (statSync(join(dir, base, n)).isDirectory() ? tree(dir, join(base, n)) : [join(base, n)]));
}

/** `n` bodies photographed in `month`, marked `sensitivity`. */
function bodies(n: number, month: string, sensitivity: "public" | "restricted") {
  return Array.from({ length: n }, (_, i) => ({ photoDate: `${month}-${String(i + 1).padStart(2, "0")}`, sensitivity, nameAr: "اسم لا يُنشر" }));
}

for (const { backend, skip } of await backends()) {
  test(`a chart item shows the catalogue's public aggregates, frozen at its review, in the pages, the export and the manifest (${backend.name})`, { skip, timeout: 180_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      // Public bodies: 7 in August, 6 in September, 2 in October, 1 in November (the last two withheld: under 5).
      // Restricted bodies are never counted.
      await seedBodies(a, investigator, [...bodies(7, "2012-08", "public"), ...bodies(6, "2012-09", "public"), ...bodies(2, "2012-10", "public"), ...bodies(1, "2012-11", "public"), ...bodies(9, "2013-01", "restricted")]);

      const ex = await createExhibition(a, author, { title: { ar: "معرض", en: "Exhibition" }, languages: ["ar", "en"] });
      await assert.rejects(addItem(a, author, { exhibition: ex.id, kind: "chart" }), /chart/);
      const item = await addItem(a, author, { exhibition: ex.id, kind: "chart", chart: "byPhotoMonth", caption: { ar: "الجثامين حسب شهر التصوير", en: "Bodies by month photographed" } });
      assert.equal(item.kind, "chart");
      assert.equal(item.chart, "byPhotoMonth");
      assert.equal(item.chartData, null, "no numbers until the review freezes them");
      assert.equal(item.consent, "not-needed");
      assert.equal(item.graphic, false);

      await submitExhibition(a, author, ex.id);
      // Like every item, a chart needs the second person's review: the author may not give it.
      await assert.rejects(reviewItem(a, author, { item: item.id }));
      const reviewed = await reviewItem(a, second, { item: item.id });
      assert.ok(reviewed.reviewed?.current);
      assert.deepEqual(
        reviewed.chartData?.buckets.map((b) => [b.value, b.count]),
        [["2012-08", 7], ["2012-09", 6], ["2012-10", null], ["2012-11", null]],
      );
      assert.equal(reviewed.chartData?.minCount, 5);
      assert.doesNotMatch(JSON.stringify(reviewed.chartData), /اسم|B-\d/, "aggregates only: no names, no references");
      await approveExhibition(a, second, ex.id);
      await publishExhibition(a, second, ex.id);

      // Later bodies do not change what was published: the numbers are the item's.
      await seedBodies(a, investigator, bodies(5, "2012-08", "public"));
      assert.deepEqual((await showExhibition(a, author, ex.id)).items[0]!.chartData, reviewed.chartData);

      const out1 = join(tempDir("dalil-exh-chart-"), "one");
      const out2 = join(tempDir("dalil-exh-chart-"), "two");
      const e1 = await exportExhibition(a, author, { exhibition: ex.ref, out: out1 });
      const e2 = await exportExhibition(a, second, { exhibition: ex.ref, out: out2 });
      assert.deepEqual(tree(out1), ["VERIFY.txt", "ar-text.html", "ar.html", "charts/001.json", "en-text.html", "en.html", "index.html", "manifest.json", "style.css"]);
      assert.deepEqual(tree(out2), tree(out1));
      for (const f of tree(out1)) assert.ok(readFileSync(join(out1, f)).equals(readFileSync(join(out2, f))), `${f} is byte-identical in both exports`);
      assert.equal(e1.manifestSha256, e2.manifestSha256);
      assert.equal(e1.images, 0);

      // The manifest lists the chart with its data's SHA-256 (no original: it is not a photo).
      const manifest = Manifest.parse(JSON.parse(readFileSync(join(out1, "manifest.json"), "utf8")));
      assert.deepEqual(manifest.images, []);
      assert.equal(manifest.charts?.length, 1);
      const c = manifest.charts![0]!;
      assert.deepEqual([c.file, c.item, c.chart, c.approvedBy], ["charts/001.json", item.id, "byPhotoMonth", second.id]);
      assert.ok(!("sha256" in c));
      const data = readFileSync(join(out1, c.file));
      assert.equal(createHash("sha256").update(data).digest("hex"), c.dataSha256);
      assert.deepEqual(JSON.parse(data.toString("utf8")), reviewed.chartData);
      const review = (await a.log.eventsFor(ex.id)).find((e) => e.seq === c.logIndex);
      assert.equal(review?.event.detail.action, "exhibition.item-review");
      assert.equal(review?.event.detail.data, c.dataSha256, "the review event names the frozen data");

      // The pages: an SVG with a title and a description, the counts, and the same numbers as a table.
      const en = readFileSync(join(out1, "en.html"), "utf8");
      assert.match(en, /<svg [^>]*role="img" aria-labelledby="chart-1-title chart-1-desc"/);
      assert.match(en, /<title id="chart-1-title">Bodies by month of the photograph<\/title>/);
      assert.match(en, /<desc id="chart-1-desc">/);
      assert.match(en, />7<\/text>/);
      assert.match(en, />6<\/text>/);
      assert.match(en, /<table class="chart-data">/);
      assert.match(en, /<tr><th scope="row">2012-08<\/th><td>7<\/td><\/tr>/);
      assert.match(en, /<tr><th scope="row">2012-10<\/th><td>fewer than 5<\/td><\/tr>/);
      assert.match(en, /Bodies by month photographed/);
      const enText = readFileSync(join(out1, "en-text.html"), "utf8");
      assert.doesNotMatch(enText, /<svg/);
      assert.match(enText, /<tr><th scope="row">2012-09<\/th><td>6<\/td><\/tr>/);
      const ar = readFileSync(join(out1, "ar.html"), "utf8");
      assert.match(ar, /<title id="chart-1-title">الجثامين حسب شهر التصوير<\/title>/);
      assert.match(ar, /أقل من 5/);
      assert.doesNotMatch(en + ar, /اسم لا يُنشر/);
      assert.match(readFileSync(join(out1, "VERIFY.txt"), "utf8"), /charts\[\]/);
    } finally {
      await t.close();
    }
  });
}
