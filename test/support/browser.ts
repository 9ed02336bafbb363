import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32 } from "node:zlib";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { TOTP, Secret } from "otpauth";

/**
 * The browser tests' tools: Debian's Chromium driven by playwright-core (headless, a fresh context, no network
 * beyond localhost), a real `dalil serve` on a free port over a fresh data directory (serve.ts), screenshots under
 * test-artifacts/, an axe-core check, and TOTP codes as an authenticator app would show them.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ARTIFACTS = join(ROOT, "test-artifacts", "e2e");

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here, or false. Under CI=true they always run (and fail if Chromium is missing). */
export function browserSkip(): string | false {
  if (process.env.CI === "true") return false;
  return existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium); browser tests skipped`;
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy violations and page errors seen so far: the app must cause none. */
  problems: string[];
  close(): Promise<void>;
}

// One Chromium per test file, each session a fresh context in it: a context is as separate as a new profile
// (its own cookies, storage and cache), and a session opened and closed this way costs a third of one that starts
// its own browser (0.5 s against 1.5 s, measured), paid for every role in every language. The browser closes a
// moment after its last session does, so a test file's process can end; a launch that fails is tried again by
// the next session rather than remembered.
let shared: Promise<Browser> | null = null;
let sessions = 0;
let idle: NodeJS.Timeout | null = null;

function sharedBrowser(): Promise<Browser> {
  if (idle) clearTimeout(idle);
  idle = null;
  shared ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }).catch((e: unknown) => {
    shared = null;
    throw e;
  });
  return shared;
}

function sessionClosed(): void {
  sessions -= 1;
  if (sessions > 0 || !shared) return;
  const closing = shared;
  idle = setTimeout(() => {
    if (shared !== closing || sessions > 0) return;
    shared = null;
    void closing.then((b) => b.close());
  }, 1000);
}

/** `timezoneId`: the zone the browser believes it is in (default UTC), to check what a screen shows in another. */
export async function openBrowser(opts: { locale: string; viewport?: { width: number; height: number }; timezoneId?: string }): Promise<BrowserSession> {
  // counted before the launch is awaited, so that a session closing meanwhile does not close the browser under it
  sessions += 1;
  let context: BrowserContext | undefined;
  let page: Page;
  try {
    const browser = await sharedBrowser();
    context = await browser.newContext({
      locale: opts.locale,
      viewport: opts.viewport ?? { width: 1280, height: 860 },
      acceptDownloads: true,
      timezoneId: opts.timezoneId ?? "UTC",
    });
    page = await context.newPage();
  } catch (e) {
    // a session that never opened must not hold the browser open (the file's process would never end)
    await context?.close().catch(() => undefined);
    sessionClosed();
    throw e;
  }
  const opened = context;
  const problems: string[] = [];
  page.on("console", (m) => {
    const text = m.text();
    if (m.type() === "error" && /Content.Security.Policy|Refused to/i.test(text)) problems.push(`CSP: ${text}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  let closed = false;
  return {
    context: opened,
    page,
    problems,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await opened.close();
      } finally {
        sessionClosed();
      }
    },
  };
}

export { freePort, startDalil, type DalilServer } from "./serve.ts";

/**
 * Waits until a JavaScript expression is truthy in the page. Polled from here with page.evaluate (the DevTools
 * protocol), because waitForFunction with a string evaluates it inside the page, which the app's CSP forbids.
 */
export async function waitForExpression(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(expression)) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, `${name}.png`);
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: screenshotPath(name), fullPage });
}

const AXE_SOURCE = readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core on the page as it is: the serious and critical violations (the app must have none). axe is
 * evaluated through the DevTools protocol, so the page's CSP (no inline scripts) stays in force.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) })))`)) as AxeViolation[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** The names of the endpoints in a table that the running server's route table (GET /api/routes) lacks. */
export async function missingEndpoints(base: string, table: Record<string, { method: string; url: string }>): Promise<string[]> {
  const routes = (await (await fetch(`${base}/api/routes`)).json()) as { method: string; url: string }[];
  const have = new Set(routes.map((r) => `${r.method} ${r.url}`));
  return Object.entries(table)
    .filter(([, e]) => !have.has(`${e.method} ${e.url}`))
    .map(([name, e]) => `${name}: ${e.method} ${e.url}`);
}

/** A record's internal id (usr_…, bod_…, src_…: a kind and 26 base32 letters, src/core/ids.ts). */
export const INTERNAL_ID = /\b[a-z]{1,4}_[a-z2-7]{26}\b/g;

/**
 * Fails the test if the page shows a person or a record by internal id: in its visible text, or in a title a
 * pointer reveals. People are named by address and role, records by reference. Run wherever axe runs (below),
 * so every screen the browser tests look at is checked.
 */
export async function expectNoInternalIds(page: Page, screen: string): Promise<void> {
  const shown = (await page.evaluate(`[document.body.innerText, ...[...document.querySelectorAll("[title]")].map((e) => e.getAttribute("title"))].join("\\n")`)) as string;
  // each id with the words around it, so the failure says where on the page it is
  const ids = [...new Set([...shown.matchAll(INTERNAL_ID)].map((m) => `${m[0]} in «${shown.slice(Math.max(0, m.index - 60), m.index + m[0].length + 20).replace(/\s+/g, " ")}»`))];
  assert.deepEqual(ids, [], `${screen} shows internal ids`);
}

/**
 * Fails the test with each serious or critical axe-core violation on the page, named by rule and element, and
 * with any internal id the page shows (expectNoInternalIds).
 */
export async function expectNoAxeViolations(page: Page, screen: string): Promise<void> {
  await expectNoInternalIds(page, screen);
  const v = await axeViolations(page);
  assert.deepEqual(
    v.map((x) => `${x.id} (${x.impact}): ${x.help} at ${x.nodes.join(" ")}`),
    [],
    `axe-core found serious or critical violations on ${screen}`,
  );
}

/** The code an authenticator app shows for this secret, `steps` time steps from now. */
export function totp(secretBase32: string, steps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secretBase32.replace(/\s+/g, "")), algorithm: "SHA1", digits: 6, period: 30 }).generate({
    timestamp: Date.now() + steps * 30_000,
  });
}

/** A plain (stored) .zip of a folder, as a card reader's "compress" would make: for the .zip upload path. */
export function zipFolder(dir: string, out: string): void {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(dir);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(relative(dir, f).split("\\").join("/"), "utf8");
    const data = readFileSync(f);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0, 10); // DOS time and date: 1980-01-01 is fine for a test
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(0x0800, 8);
    head.writeUInt16LE(0, 10);
    head.writeUInt32LE(0, 12);
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(data.length, 20);
    head.writeUInt32LE(data.length, 24);
    head.writeUInt16LE(name.length, 28);
    head.writeUInt32LE(offset, 42);
    central.push(head, name);
    parts.push(local, name, data);
    offset += local.length + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(out, Buffer.concat([...parts, cd, end]));
}
