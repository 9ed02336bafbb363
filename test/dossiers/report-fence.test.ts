import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import sharp from "sharp";
import { chromiumEnv, launchChromium, printPdf, REPORT_CSP } from "../../src/dossiers/report/pdf.ts";
import { pdfText, reportRoot, skipBrowser } from "../support/report-pdf.ts";

/**
 * A dossier report carries what people typed. If some of it ever reached the page as markup, printing it must
 * still run no script, fetch nothing from the network or from outside the report's directory, and the browser
 * must hold no secret of the server's.
 */

/** A web server that counts every request made to it. */
async function witness(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png" }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

function hostile(at: string): string {
  return [
    `<link rel="stylesheet" href="${at}/sheet.css"><style>@import url("${at}/import.css"); body{background:url("${at}/bg.png")}</style>`,
    `<p>The exhibit text.</p>`,
    `<img src="${at}/pixel.png"><img src="${at.replace("127.0.0.1", "localhost")}/by-name.png"><img src="file:///etc/hostname">`,
    `<iframe src="${at}/frame.html"></iframe><object data="${at}/object"></object>`,
    `<script>document.body.append("SCRIPT RAN"); fetch("${at}/fetch"); new Image().src = "${at}/from-script";</script>`,
  ].join("");
}

test("a report page carrying script and remote URLs prints with no script run and nothing fetched", { skip: skipBrowser, timeout: 120_000 }, async () => {
  const dir = reportRoot("dalil-fence-");
  const w = await witness();
  const browser = await launchChromium();
  try {
    await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toFile(join(dir, "own.png"));
    // Without the page's CSP: the print's own fences (JavaScript off, requests aborted) must hold by themselves.
    const bare = join(dir, "bare.html");
    writeFileSync(bare, `<!doctype html><html><head><meta charset="utf-8"></head><body>${hostile(w.url)}</body></html>`);
    await printPdf(browser, bare, join(dir, "bare.pdf"), { tagged: false });
    // With the CSP the report's head carries: its own image still prints.
    const fenced = join(dir, "fenced.html");
    writeFileSync(fenced, `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}"></head><body><img src="own.png">${hostile(w.url)}</body></html>`);
    await printPdf(browser, fenced, join(dir, "fenced.pdf"), { tagged: false });

    assert.deepEqual(w.hits, [], "no request reached the network");
    for (const pdf of ["bare.pdf", "fenced.pdf"]) {
      const text = pdfText(join(dir, pdf));
      assert.ok(text.includes("Theexhibittext."), text);
      assert.ok(!text.includes("SCRIPTRAN"), `${pdf}: a script ran`);
    }
    // Sizes of the images in the PDF: the report's own (64×48) and Chromium's broken-image icons for the refused.
    const sizes = spawnSync("pdfimages", ["-list", join(dir, "fenced.pdf")], { encoding: "utf8" })
      .stdout.trim()
      .split("\n")
      .slice(2)
      .filter((l) => / image /.test(l))
      .map((l) => l.trim().split(/\s+/).slice(3, 5).join("x"));
    assert.equal(sizes.filter((s) => s === "64x48").length, 1, `the report's own image prints: ${sizes.join(" ")}`);
  } finally {
    await browser.close();
    await w.close();
  }
});

/** Processes started by this one (at any depth), by pid. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

test("the Chromium that prints reports runs without the server's secrets in its environment", { skip: skipBrowser, timeout: 60_000 }, async () => {
  const planted = {
    DALIL_MASTER_KEY: "planted-master-key-0123456789",
    DALIL_DATABASE_URL: "postgres://dalil:planted-password@db/dalil",
    DATABASE_URL: "postgres://planted",
    AWS_SECRET_ACCESS_KEY: "planted-aws-secret",
    AWS_ACCESS_KEY_ID: "PLANTEDKEYID",
  };
  const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]));
  Object.assign(process.env, planted);
  assert.deepEqual(Object.keys(chromiumEnv()).filter((k) => k in planted), []);
  const browser = await launchChromium();
  try {
    const chromes = descendants(process.pid).filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes("chrom");
      } catch {
        return false;
      }
    });
    assert.ok(chromes.length > 0, "found the browser's processes");
    for (const p of chromes) {
      let environ: string;
      try {
        environ = readFileSync(`/proc/${p}/environ`, "utf8");
      } catch {
        continue;
      }
      for (const [k, v] of Object.entries(planted)) {
        assert.ok(!environ.includes(`${k}=`) && !environ.includes(v), `process ${p} has ${k}`);
      }
      assert.ok(!/(^|\0)(DALIL_|AWS_|PG[A-Z]+=)/.test(environ), `process ${p} has a DALIL_, AWS_ or PG variable`);
    }
  } finally {
    await browser.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
