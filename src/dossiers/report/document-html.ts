import type { Words } from "./i18n.ts";
import type { WithdrawnExhibit } from "./gather.ts";
import { kindName } from "./exhibit-html.ts";
import type { ReportStats } from "./stats.ts";
import { barChart } from "./charts.ts";
import { esc } from "./esc.ts";
import { REPORT_CSP } from "./pdf.ts";

/**
 * The parts of the report around the exhibits: cover, contents, method, statistics and annexes (Annex C, the
 * withdrawn exhibits, only when there are some). The contents
 * print page numbers found by a draft print (`pages`); the draft prints "000" in their place, which takes the
 * same room, so both prints break pages alike.
 */
export interface DocumentParts {
  lang: "ar" | "en";
  w: Words;
  title: string;
  subtitle?: string;
  dossier?: { id: string; version: number };
  clearance: "original" | "redacted" | "blurred";
  preparedBy: string;
  preparedAt: string;
  photoCount: number;
  log: { origin: string; size: number; note: string; timestamped: boolean };
  stats: ReportStats;
  /** What the method section states about this report's numbers and reviews, counted from its exhibits. */
  record: MethodRecord;
  /** Withdrawn exhibits, listed in Annex C so their numbers stay findable. */
  withdrawn: WithdrawnExhibit[];
  /** Annex D, per printed photo; null when the preparer may not read authenticity analyses. */
  authenticity: AuthenticityRow[] | null;
  styles: string;
}

export interface MethodRecord {
  bodies: number;
  numbers: { total: number; typed: number; ocr: number; checked: number };
  /** Body exhibits printed with at least one review; null when the preparer may not read reviews. */
  reviewed: number | null;
}

export interface TocExhibit {
  id: string;
  number: string;
  ref: string;
}

export interface HashRow {
  exhibit: string;
  photo: number;
  sha256: string;
}

export interface AuthenticityRow {
  exhibit: string;
  photo: number;
  sha256: string;
  analysed: boolean;
  camera: string | null;
  signature: string | null;
  /** Findings above information, worded in the report's language. */
  findings: { severity: string; text: string }[];
}

export type PageNumbers = Map<string, number> | null;

const PLACEHOLDER = "000";

function pageOf(pages: PageNumbers, id: string): string {
  if (!pages) return PLACEHOLDER;
  const n = pages.get(id);
  return n === undefined ? "" : String(n);
}

function tocLine(label: string, id: string, pages: PageNumbers, sub = false): string {
  return `<li${sub ? ` class="sub"` : ""}><a href="#${id}">${label}</a><span class="dots"></span><span>${pageOf(pages, id)}</span></li>`;
}

export function head(d: DocumentParts): string {
  return `<!doctype html><html lang="${d.lang}" dir="${d.w.dir}"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}"><title>${esc(d.title)}</title><style>${d.styles}</style></head><body>`;
}

export function cover(d: DocumentParts, exhibits: number): string {
  const { w } = d;
  const clearance = d.clearance === "original" ? w.clearanceOriginal : d.clearance === "redacted" ? w.clearanceRedacted : w.clearanceBlurred;
  const rows: [string, string][] = [];
  if (d.dossier) rows.push([w.dossier, `${d.dossier.id} · ${w.version} ${d.dossier.version}`]);
  rows.push([w.preparedBy, d.preparedBy], [w.preparedAt, d.preparedAt], [w.clearance, clearance], [w.exhibitCount, String(exhibits)]);
  if (d.withdrawn.length) rows.push([w.withdrawnCount, String(d.withdrawn.length)]);
  rows.push([w.photoCount, String(d.photoCount)], [w.logOrigin, d.log.origin], [w.logSize, String(d.log.size)]);
  return `<section class="cover"><h1>${esc(d.title)}</h1>${d.subtitle ? `<p class="subtitle">${esc(d.subtitle)}</p>` : ""}<dl>${rows
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${k === w.logOrigin ? `<span class="hash">${esc(v)}</span>` : `<bdi>${esc(v)}</bdi>`}</dd>`)
    .join("")}</dl><p class="warning">${esc(w.warning)}</p></section>`;
}

export function contents(d: DocumentParts, exhibits: TocExhibit[], pages: PageNumbers): string {
  const { w } = d;
  const lines = [
    tocLine(esc(w.method), "method", pages),
    tocLine(esc(w.statistics), "statistics", pages),
    tocLine(esc(w.exhibits), exhibits[0]?.id ?? "x1", pages),
    ...exhibits.map((e) => tocLine(`${esc(w.exhibit)} ${esc(e.number)} · ${esc(e.ref)}`, e.id, pages, true)),
    tocLine(esc(w.annexCheckpoint), "annex-a", pages),
    tocLine(esc(w.annexHashes), "annex-b", pages),
    ...(d.withdrawn.length ? [tocLine(esc(w.annexWithdrawn), "annex-c", pages)] : []),
    tocLine(esc(w.annexAuthenticity), "annex-d", pages),
  ];
  return `<nav class="toc page" id="contents"><h2>${esc(w.contents)}</h2><ol>${lines.join("")}</ol></nav>`;
}

function fill(template: string, values: Record<string, number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}

/** The numbers' and reviews' paragraphs say what this report's records show, counted, never what should have been done. */
function numbersText(d: DocumentParts): string {
  const { w } = d;
  const n = d.record.numbers;
  if (n.total === 0) return w.numbersNone;
  const unchecked = n.total - n.checked;
  const checks = n.checked === n.total ? w.numbersAllChecked : n.checked === 0 ? w.numbersNoneChecked : w.numbersSomeChecked;
  return `${fill(w.numbersCount, n)} ${fill(checks, { checked: n.checked, unchecked })}`;
}

function reviewsText(d: DocumentParts): string {
  const { w, record } = d;
  if (record.reviewed === null) return w.reviewsNotReadable;
  if (record.reviewed === 0) return w.reviewsNone;
  return fill(w.reviewsCount, { reviewed: record.reviewed, bodies: record.bodies });
}

export function method(d: DocumentParts): string {
  const { w } = d;
  const part = (h: string, t: string) => `<h3>${esc(h)}</h3><p>${esc(t)}</p>`;
  const bodies = d.record.bodies > 0 ? `${part(w.methodNumbers, numbersText(d))}${part(w.methodReview, reviewsText(d))}` : "";
  return `<section class="page" id="method"><h2>${esc(w.method)}</h2>${part(w.methodAcquired, w.methodAcquiredText)}${part(w.methodPreserved, w.methodPreservedText)}${part(w.methodLog, w.methodLogText)}${part(w.methodVerify, w.methodVerifyText)}${bodies}</section>`;
}

export function statistics(d: DocumentParts): string {
  const { w, stats } = d;
  const rtl = d.lang === "ar";
  const other = d.lang === "ar" ? "أخرى" : "other";
  return `<section class="page" id="statistics"><h2>${esc(w.statistics)}</h2><p class="muted">${esc(w.statsIntro)}</p>${barChart(w.byBranch, stats.branch, rtl, other)}${barChart(w.byFacility, stats.facility, rtl, other)}${barChart(w.byPeriod, stats.period, rtl, other)}${barChart(w.byFinding, stats.finding, rtl, other)}</section>`;
}

export function annexes(d: DocumentParts, hashes: HashRow[]): string {
  const { w } = d;
  const rows = hashes.map((h) => `<tr><td>${esc(h.exhibit)}</td><td>${h.photo}</td><td class="hash">${h.sha256}</td></tr>`).join("");
  return `<section class="page" id="annex-a"><h2>${esc(w.annexCheckpoint)}</h2><p>${esc(w.checkpointIntro)}</p><pre class="checkpoint">${esc(d.log.note)}</pre>${d.log.timestamped ? `<p>${esc(w.timestamped)}</p>` : ""}</section><section class="page" id="annex-b"><h2>${esc(w.annexHashes)}</h2><p>${esc(w.hashesIntro)}</p><table class="hashes"><thead><tr><th>${esc(w.exhibit)}</th><th>${esc(w.photoShort)}</th><th>${esc(w.sha256)}</th></tr></thead><tbody>${rows}</tbody></table></section>${withdrawnAnnex(d)}`;
}

function withdrawnAnnex(d: DocumentParts): string {
  const { w } = d;
  if (!d.withdrawn.length) return "";
  const rows = d.withdrawn
    .map((x) => `<tr><td>${esc(x.number)}</td><td>${esc(kindName(w, x.kind))}</td><td><bdi>${esc(x.at.slice(0, 10))}</bdi></td><td dir="auto">${esc(x.reason)}</td></tr>`)
    .join("");
  return `<section class="page" id="annex-c"><h2>${esc(w.annexWithdrawn)}</h2><p>${esc(w.withdrawnIntro)}</p><table class="hashes withdrawn"><thead><tr><th>${esc(w.exhibit)}</th><th>${esc(w.kind)}</th><th>${esc(w.withdrawnAt)}</th><th>${esc(w.withdrawReason)}</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** Annex D: what the authenticity analysis of each printed photo's card found about it (or that none was made). */
export function authenticityAnnex(d: DocumentParts): string {
  const { w } = d;
  const head = `<section class="page" id="annex-d"><h2>${esc(w.annexAuthenticity)}</h2>`;
  if (d.authenticity === null) return `${head}<p>${esc(w.authenticityNotShown)}</p></section>`;
  const rows = d.authenticity
    .map((r) => {
      const what = !r.analysed
        ? esc(w.authenticityNotAnalysed)
        : r.findings.length === 0
          ? esc(w.authenticityClean)
          : `<ul>${r.findings.map((f) => `<li><strong>${esc(w.severityNames[f.severity] ?? f.severity)}</strong>: ${esc(f.text)}</li>`).join("")}</ul>`;
      return `<tr><td>${esc(r.exhibit)}</td><td>${r.photo}</td><td class="hash">${esc(r.sha256.slice(0, 16))}…</td><td>${esc(r.camera ?? "—")}</td><td class="hash">${esc(r.signature ?? "—")}</td><td>${what}</td></tr>`;
    })
    .join("");
  return `${head}<p>${esc(w.authenticityIntro)}</p><table class="hashes"><thead><tr><th>${esc(w.exhibit)}</th><th>${esc(w.photoShort)}</th><th>${esc(w.sha256)}</th><th>${esc(w.authenticityCamera)}</th><th>${esc(w.authenticitySignature)}</th><th>${esc(w.authenticityFindings)}</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

export const TAIL = "</body></html>";
