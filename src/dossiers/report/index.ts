import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Ctx } from "../../app/context.ts";
import type { Actor } from "../../core/actor.ts";
import { Vocabularies } from "../../catalogue/index.ts";
import { photoAuthenticity, wordFinding } from "../../authenticity/index.ts";
import { checkExhibits, Gatherer, type ExhibitInput, type WithdrawnExhibit } from "./gather.ts";
import { words, type ReportLang } from "./i18n.ts";
import { printImage, type Clearance, type PrintedImage } from "./images.ts";
import { computeStats, statRow, type StatRow } from "./stats.ts";
import { renderExhibit } from "./exhibit-html.ts";
import { authenticityAnnex, annexes, contents, cover, head, method, statistics, TAIL, type DocumentParts, type AuthenticityRow, type HashRow, type MethodRecord, type PageNumbers, type TocExhibit } from "./document-html.ts";
import { installFonts } from "./fonts.ts";
import { stylesheet } from "./style.ts";
import { launchChromium, printPdf, readPdfIndex, TAGGED_MAX_SECTIONS } from "./pdf.ts";

/**
 * The dossier report: an HTML file (with its images and fonts beside it in outDir) and the PDF Chromium prints from
 * it. Exhibits stream through one at a time (facts read, images written to files, section rendered as text), so
 * memory grows with the text of the report, not its pictures. The contents carry page numbers found by a draft
 * print with empty image boxes of the same size, then the report is printed once more with its images.
 *
 * Permissions: the caller's route or job checks the dossier action; here the preparer must be allowed to read the
 * bodies (catalogue.read, per body), to see photos (original.view) and, for originals, to reveal them
 * (original.reveal). Reviews are printed only for a preparer who may read them; entities and links as the catalogue
 * lets the preparer read them (a person of interest above their clearance fails the build). Building a report records no
 * custody event here: the caller logs the act (and any handover) with the report's hash.
 */
export type { Clearance, ReportLang };
export { readPdfIndex, chromiumPath } from "./pdf.ts";

/** One exhibit's section: a body (kind may be left out), a photograph, a review, a facility, unit or person. */
export type ReportExhibit = ExhibitInput;
export type { BodyExhibitInput, PhotoExhibitInput, ReviewExhibitInput, EntityExhibitInput, EvidenceInput, WithdrawnExhibit } from "./gather.ts";

export interface ReportInput {
  title: string;
  subtitle?: string;
  lang: ReportLang;
  clearance: Clearance;
  dossier?: { id: string; version: number };
  /** The sections, in order; at least one. */
  exhibits: ReportExhibit[];
  /** Exhibits withdrawn from the dossier: a row each in Annex C, no section. */
  withdrawn?: WithdrawnExhibit[];
  outDir: string;
  onProgress?: (done: number, total: number) => void;
}

export interface ReportResult {
  html: string;
  pdf: string;
  pages: number;
}

/** Exhibits prepared at once: image decoding runs on libuv's pool while the next exhibit's records are read. */
const CONCURRENCY = 2;

export async function buildReport(ctx: Ctx, actor: Actor, input: ReportInput): Promise<ReportResult> {
  ctx.policy.require(actor, "catalogue.read");
  ctx.policy.require(actor, "original.view");
  if (input.clearance === "original") ctx.policy.require(actor, "original.reveal");
  const withdrawn = input.withdrawn ?? [];
  checkExhibits(input.exhibits, withdrawn);
  const outDir = resolve(input.outDir);
  await mkdir(join(outDir, "img"), { recursive: true });
  const w = words(input.lang);
  const vocab = await Vocabularies.cached(ctx.db.db);
  const gatherer = new Gatherer(ctx, actor, vocab, input.lang);
  const total = input.exhibits.length + 2;
  const n = input.exhibits.length;
  const finals: string[] = new Array<string>(n);
  const drafts: string[] = new Array<string>(n);
  const toc: TocExhibit[] = new Array<TocExhibit>(n);
  // Statistics count bodies only: a photo, a review or an entity has no branch, facility or month of its own.
  const rows: (StatRow | null)[] = new Array<StatRow | null>(n);
  const hashes: HashRow[][] = new Array<HashRow[]>(n);
  const reviewsReadable = ctx.policy.allows(actor, "review.read");
  const record: MethodRecord = { bodies: 0, numbers: { total: 0, typed: 0, ocr: 0, checked: 0 }, reviewed: reviewsReadable ? 0 : null };
  let done = 0;
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const f = await gatherer.exhibit(input.exhibits[i]!);
      const images: (PrintedImage | null)[] = [];
      for (const p of f.photos) images.push(await printImage(ctx, p.sha256, input.clearance, outDir).catch(() => null));
      const r = renderExhibit(i, f, images, { w, vocab, lang: input.lang, showNames: input.clearance === "original" });
      finals[i] = r.final;
      drafts[i] = r.draft;
      toc[i] = { id: r.id, number: f.number, ref: r.label };
      rows[i] = f.kind === "body" ? statRow(f.body) : null;
      if (f.kind === "body") {
        record.bodies++;
        for (const x of f.numbers) {
          record.numbers.total++;
          record.numbers[x.method]++;
          if (x.check) record.numbers.checked++;
        }
        if (record.reviewed !== null && f.reviews.length > 0) record.reviewed++;
      }
      hashes[i] = f.photos.map((p, k) => ({ exhibit: f.number, photo: k + 1, sha256: p.sha256 }));
      input.onProgress?.(++done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, worker));

  const cp = await ctx.tree.checkpoint();
  const authenticity = ctx.policy.allows(actor, "authenticity.read") ? await authenticityRows(ctx, actor, hashes.flat(), input.lang) : null;
  const parts: DocumentParts = {
    lang: input.lang,
    w,
    title: input.title,
    subtitle: input.subtitle,
    dossier: input.dossier,
    clearance: input.clearance,
    preparedBy: await gatherer.people.label(actor.id),
    preparedAt: ctx.clock.now().toISOString().slice(0, 10),
    photoCount: hashes.reduce((s, h) => s + h.length, 0),
    log: { origin: ctx.tree.origin, size: cp.size, note: cp.published, timestamped: Boolean(cp.timestampToken) },
    record,
    stats: computeStats(rows.filter((r): r is StatRow => r !== null), vocab, input.lang, w.unknown),
    withdrawn,
    authenticity,
    styles: stylesheet(await installFonts(outDir), input.lang),
  };
  const document = (sections: string[], pages: PageNumbers) =>
    [head(parts), cover(parts, n), contents(parts, toc, pages), method(parts), statistics(parts), ...sections, annexes(parts, hashes.flat()), authenticityAnnex(parts), TAIL].join("");

  const html = join(outDir, "report.html");
  const pdf = join(outDir, "report.pdf");
  const draftHtml = join(outDir, "draft.html");
  const draftPdf = join(outDir, "draft.pdf");
  const browser = await launchChromium();
  try {
    await writeFile(draftHtml, document(drafts, null));
    const tagged = n <= TAGGED_MAX_SECTIONS;
    await printPdf(browser, draftHtml, draftPdf, { tagged });
    const draft = await readPdfIndex(draftPdf);
    input.onProgress?.(++done, total);
    await writeFile(html, document(finals, draft.dests));
    await printPdf(browser, html, pdf, { tagged });
  } finally {
    await browser.close();
    await rm(draftHtml, { force: true });
    await rm(draftPdf, { force: true });
  }
  const { pages } = await readPdfIndex(pdf);
  input.onProgress?.(++done, total);
  return { html, pdf, pages };
}

/** Annex D's rows: the latest analysis covering each printed photo, its findings above information in `lang`. */
async function authenticityRows(ctx: Ctx, actor: Actor, hashes: HashRow[], lang: "ar" | "en"): Promise<AuthenticityRow[]> {
  const out: AuthenticityRow[] = [];
  for (const h of hashes) {
    const a = await photoAuthenticity(ctx, actor, h.sha256);
    out.push({
      exhibit: h.exhibit,
      photo: h.photo,
      sha256: h.sha256,
      analysed: a.run !== null,
      camera: a.summary?.camera ?? null,
      signature: a.summary?.signature ?? null,
      findings: a.findings.filter((f) => f.severity !== "information").map((f) => ({ severity: f.severity, text: wordFinding(f.key, f.params, lang) })),
    });
  }
  return out;
}
