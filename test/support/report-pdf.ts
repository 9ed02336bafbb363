import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromiumPath } from "../../src/dossiers/report/index.ts";
import { tempDir } from "./backends.ts";
import { ROOT } from "./browser.ts";

/** What the report tests share: where pages are left to look at, when to skip, and reading a PDF back. */
export const ARTIFACTS = join(ROOT, "test-artifacts", "report");

export const skipBrowser = existsSync(chromiumPath()) || process.env.CI === "true" ? false : `${chromiumPath()} is not installed; report tests skipped`;

export function reportRoot(prefix: string): string {
  return tempDir(prefix);
}

/**
 * Text as pdftotext gives it back, compared after NFKC (presentation forms fold to letters), without combining
 * marks and without whitespace: poppler places a shadda by its x position (it may land before its letter) and
 * guesses word gaps from glyph positions, splitting some Naskh words ("الف رع"); the letters and their logical
 * order are what is compared. The raw text is also checked for presentation forms (unshaped glyph mapping).
 */
export function pdfText(pdf: string, page?: number): string {
  const args = ["-enc", "UTF-8", ...(page ? ["-f", String(page), "-l", String(page)] : []), pdf, "-"];
  const r = spawnSync("pdftotext", args, { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /[\ufb50-\ufdff\ufe70-\ufeff]/u, "letters come back as letters, not presentation forms");
  return norm(r.stdout);
}

export const norm = (s: string): string => s.normalize("NFKC").replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "").replace(/\p{Mn}/gu, "").replace(/\s+/g, "");

/** One page as a PNG in test-artifacts/report/, to look at. */
export function render(pdf: string, page: number, name: string, dpi = 70): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const prefix = join(ARTIFACTS, name);
  const r = spawnSync("pdftoppm", ["-png", "-r", String(dpi), "-f", String(page), "-l", String(page), "-singlefile", pdf, prefix], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return `${prefix}.png`;
}
