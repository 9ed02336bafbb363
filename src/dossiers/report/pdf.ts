import { open } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Route } from "playwright-core";
import { PAGE } from "./style.ts";

/**
 * Printing with headless Chromium (it shapes Arabic and lays out bidirectional text as a browser does), and
 * reading back from the PDF it wrote the page of each named destination, for the contents' page numbers.
 *
 * The report holds what people typed (names, reasoning, notes). It is escaped, and the print is also fenced in
 * case something gets through: JavaScript is off, the page's CSP allows only its own files and data: URLs
 * with inline styles, every request other than a file in the report's own directory (or a data: URL) is
 * aborted, host names resolve to nothing, and Chromium runs with a minimal environment (no DALIL_* keys,
 * database URLs or cloud credentials) so a browser compromise finds no secrets in its own process.
 */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

export function chromiumPath(): string {
  return process.env.DALIL_CHROMIUM || DEFAULT_CHROMIUM;
}

/** The report page's Content-Security-Policy (a meta tag in its head): no script, no network, no frames. */
export const REPORT_CSP = "default-src 'none'; img-src file: data:; font-src file: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** What Chromium needs from the environment, and nothing else: an allow-list, so a new secret is never passed on. */
const CHROMIUM_ENV = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_PATH", "FONTCONFIG_FILE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"];

export function chromiumEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of CHROMIUM_ENV) if (env[k] !== undefined) out[k] = env[k]!;
  return out;
}

export async function launchChromium(): Promise<Browser> {
  // Loaded here, not at the top: playwright-core takes most of a second to load and every `dalil` command
  // would pay for it, while only a report's PDF needs it.
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    env: chromiumEnv(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--headless",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // No name resolves: even a request that got past the page's fences would reach no host by name.
      "--host-resolver-rules=MAP * ~NOTFOUND",
    ],
  });
}

/** Lets through data: URLs and files inside `dir`; aborts everything else (http, https, ws, other files). */
function fenceRequests(dir: string): (route: Route) => Promise<void> {
  const root = resolve(dir);
  return async (route) => {
    const url = route.request().url();
    let allowed = url.startsWith("data:");
    if (url.startsWith("file:")) {
      const path = resolve(fileURLToPath(url));
      allowed = path === root || path.startsWith(root + sep);
    }
    await (allowed ? route.continue() : route.abort("blockedbyclient"));
  };
}

const FOOTER = `<div style="width:100%;font-size:8px;text-align:center;color:#555;font-family:sans-serif"><span class="pageNumber"></span> / <span class="totalPages"></span></div>`;

/**
 * A tagged PDF (structure tree, bookmarks) makes Chromium build the accessibility tree of the whole document: for
 * 500 exhibits that took more than ten times as long as the print itself (measured: > 12 min against 2.5 min on a
 * loaded machine). Small reports are tagged; large ones are not (the contents still link to every section).
 */
export const TAGGED_MAX_SECTIONS = 100;

export async function printPdf(browser: Browser, htmlPath: string, pdfPath: string, opts: { tagged: boolean }): Promise<void> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  await context.route("**/*", fenceRequests(dirname(htmlPath)));
  const page = await context.newPage();
  // A report of hundreds of exhibits takes minutes to print; the job's own limits apply, not Playwright's 30 s.
  page.setDefaultTimeout(0);
  try {
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: "load", timeout: 0 });
    await page.evaluate("document.fonts.ready.then(() => true)");
    await page.pdf({
      path: pdfPath,
      format: "A4",
      printBackground: true,
      displayHeaderFooter: true,
      headerTemplate: "<div></div>",
      footerTemplate: FOOTER,
      margin: { top: `${PAGE.marginMm}mm`, bottom: "20mm", left: `${PAGE.marginMm}mm`, right: `${PAGE.marginMm}mm` },
      outline: opts.tagged,
      tagged: opts.tagged,
    });
  } finally {
    await context.close();
  }
}

/**
 * The page count and the 1-based page of each named destination of a PDF as Chromium writes it: a classic
 * cross-reference table, plain (uncompressed) dictionaries for the catalogue, page tree and destinations. Only
 * those objects are read, so a PDF of hundreds of megabytes costs a few small reads.
 */
export async function readPdfIndex(path: string): Promise<{ pages: number; dests: Map<string, number> }> {
  const fh = await open(path, "r");
  try {
    const { size } = await fh.stat();
    const read = async (at: number, len: number): Promise<string> => {
      const buf = Buffer.alloc(Math.min(len, size - at));
      await fh.read(buf, 0, buf.length, at);
      return buf.toString("latin1");
    };
    const tail = await read(Math.max(0, size - 2048), 2048);
    const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1]);
    if (!Number.isFinite(startxref)) throw new Error("No startxref in the PDF.");
    const trailerRoot = Number(/\/Root (\d+) 0 R/.exec(tail)?.[1]);
    const head = await read(startxref, 64);
    const m = /^xref\s+(\d+) (\d+)\s+/.exec(head);
    if (!m) throw new Error("The PDF has no classic cross-reference table.");
    const first = Number(m[1]);
    const count = Number(m[2]);
    const table = await read(startxref + m[0].length, count * 20);
    const offsetOf = (obj: number): number => Number(table.slice((obj - first) * 20, (obj - first) * 20 + 10));
    const object = async (obj: number): Promise<string> => {
      const at = offsetOf(obj);
      let len = 4096;
      for (;;) {
        const s = await read(at, len);
        const end = s.indexOf("endobj");
        if (end >= 0 || at + len >= size) return end >= 0 ? s.slice(0, end) : s;
        len *= 4;
      }
    };
    const catalog = await object(trailerRoot);
    const pagesRoot = Number(/\/Pages (\d+) 0 R/.exec(catalog)?.[1]);
    const order: number[] = [];
    const walk = async (obj: number): Promise<void> => {
      const node = await object(obj);
      if (/\/Type \/Pages\b/.test(node)) {
        const kids = /\/Kids \[([^\]]*)\]/.exec(node)?.[1] ?? "";
        for (const k of kids.matchAll(/(\d+) 0 R/g)) await walk(Number(k[1]));
      } else {
        order.push(obj);
      }
    };
    await walk(pagesRoot);
    const pageNo = new Map(order.map((o, i) => [o, i + 1]));
    const dests = new Map<string, number>();
    const destsRef = /\/Dests (\d+) 0 R/.exec(catalog)?.[1];
    if (destsRef) {
      const d = await object(Number(destsRef));
      for (const e of d.matchAll(/\/([^\s/[\]<>()]+)\s*\[(\d+) 0 R/g)) {
        const n = pageNo.get(Number(e[2]));
        if (n !== undefined) dests.set(e[1]!.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), n);
      }
    }
    return { pages: order.length, dests };
  } finally {
    await fh.close();
  }
}
