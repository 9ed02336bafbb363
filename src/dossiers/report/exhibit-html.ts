import type { Vocabularies } from "../../catalogue/index.ts";
import type { ExhibitFacts } from "./gather.ts";
import type { Words } from "./i18n.ts";
import type { PrintedImage } from "./images.ts";
import { esc } from "./esc.ts";
import { CONTENT_WIDTH_MM } from "./style.ts";

/**
 * One exhibit's section: its numbers and facts, findings, reviews, links with their reasoning, and each photo
 * with its SHA-256 and custody log indexes. Rendered once per exhibit as the exhibits stream through, then
 * dropped: only this text is kept.
 */
export interface ExhibitRender {
  /** Section id (anchor for the contents). */
  id: string;
  /** The section with `<img>` tags, and the same with empty boxes of identical size (for the draft print). */
  final: string;
  draft: string;
}

const GAP_MM = 6;
const BIG = { w: CONTENT_WIDTH_MM, h: 100 };
const SMALL = { w: (CONTENT_WIDTH_MM - GAP_MM) / 2, h: 62 };

function box(img: { width: number; height: number }, max: { w: number; h: number }): { w: number; h: number } {
  const scale = Math.min(max.w / img.width, max.h / img.height);
  return { w: Math.round(img.width * scale * 10) / 10, h: Math.round(img.height * scale * 10) / 10 };
}

export interface ExhibitContext {
  w: Words;
  vocab: Vocabularies;
  lang: "ar" | "en";
  /** Names of identified people are printed only at the original clearance. */
  showNames: boolean;
}

function term(c: ExhibitContext, v: "hospital" | "finding" | "branch", code: string | null): string {
  if (!code) return c.w.unknown;
  const t = c.vocab.get(v, code);
  return t ? (c.lang === "ar" ? t.labelAr : t.labelEn) : code;
}

/** The number as written, with the branch's name when the vocabulary knows it (its label often holds the number). */
function branchText(c: ExhibitContext, no: string): string {
  const label = term(c, "branch", no);
  if (label === no) return no;
  return label.includes(no) ? label : `${no} (${label})`;
}

function role(c: ExhibitContext, code: string): string {
  const t = c.vocab.get("photo_role", code);
  return t ? (c.lang === "ar" ? t.labelAr : t.labelEn) : code;
}

function facts(f: ExhibitFacts, c: ExhibitContext): string {
  const b = f.body;
  const { w } = c;
  const rows: [string, string][] = [
    [w.body, b.ref],
    [w.detaineeNo, b.detaineeNo ?? w.unknown],
    [w.branchNo, b.branchNo ? branchText(c, b.branchNo) : w.unknown],
    [w.examinerNo, b.examinerNo ?? w.unknown],
    [w.hospital, term(c, "hospital", b.hospital)],
    [w.photoDate, b.photoDate ?? w.unknown],
    [w.deathDate, b.deathDate?.text ?? w.unknown],
    [w.sex, b.sex === "male" ? w.male : b.sex === "female" ? w.female : w.unknown],
    [w.age, b.ageMin !== null || b.ageMax !== null ? `${b.ageMin ?? "?"}–${b.ageMax ?? "?"}` : w.unknown],
  ];
  if (c.showNames && b.identificationStatus === "identified") rows.push([w.identification, [b.nameAr, b.nameLat].filter(Boolean).join(" / ")]);
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>`;
}

function findings(f: ExhibitFacts, c: ExhibitContext): string {
  const { w } = c;
  const list = (codes: string[]) => (codes.length ? codes.map((x) => esc(term(c, "finding", x))).join(c.lang === "ar" ? "، " : ", ") : esc(w.none));
  const out = [`<h3>${esc(w.findings)}</h3><dl class="facts"><dt>${esc(w.injuries)}</dt><dd>${list(f.body.injuries)}</dd><dt>${esc(w.reviewFindings)}</dt><dd>${f.body.reviewFindings.length ? list(f.body.reviewFindings) : esc(w.reviewNone)}</dd></dl>`];
  if (f.reviews.length || f.hiddenReviews) {
    out.push(`<h3>${esc(w.reviews)}</h3><ul>`);
    for (const r of f.reviews) {
      const found = r.content.findings.map((x) => `${esc(term(c, "finding", x.code))} (${esc(w.confidence[x.confidence] ?? x.confidence)})`).join(", ");
      out.push(
        `<li>${esc(w.reviewBy)} ${esc(r.content.review)} v${r.content.version}, ${esc(r.content.submittedAt.slice(0, 10))}: ${found || esc(w.none)}${r.content.notes ? ` — <bdi>${esc(r.content.notes)}</bdi>` : ""}<br><span class="muted">${esc(w.sha256)}</span> <span class="hash">${r.sha256}</span> · ${esc(w.logIndex)} ${r.eventSeq}</li>`,
      );
    }
    if (f.hiddenReviews) out.push(`<li class="muted">${f.hiddenReviews} ${esc(w.reviewHidden)}</li>`);
    out.push(`</ul>`);
  }
  return out.join("");
}

function links(f: ExhibitFacts, c: ExhibitContext): string {
  const { w } = c;
  if (!f.reasoning.length && !f.links.length) return "";
  const out = [`<h3>${esc(w.links)}</h3>`];
  // Typed text takes its own direction: an Arabic reasoning in an English report is still a right-to-left paragraph.
  for (const r of f.reasoning) out.push(`<p dir="auto">${esc(r)}</p>`);
  if (f.links.length) {
    out.push("<ul>");
    for (const l of f.links) {
      out.push(`<li><b>${esc(l.type)}</b> <bdi>${esc(l.other)}</bdi> (${esc(w.confidence[l.confidence] ?? l.confidence)}):<div dir="auto">${esc(l.reasoning)}</div>${l.evidence.length ? `<span class="muted">${esc(w.evidence)}: ${l.evidence.map(esc).join("; ")}</span>` : ""}</li>`);
    }
    out.push("</ul>");
  }
  return out.join("");
}

function photo(p: ExhibitFacts["photos"][number], img: PrintedImage | null, big: boolean, i: number, c: ExhibitContext, draft: boolean): string {
  const { w } = c;
  const others = p.events.filter((s) => s !== p.ingestedAt);
  const caption = `${esc(w.photo)} ${i + 1} · ${esc(role(c, p.role))}<br>${esc(w.sha256)} <span class="hash">${p.sha256}</span><br>${esc(w.logIndex)}: ${p.ingestedAt !== null ? `${p.ingestedAt} (${esc(w.ingested)})` : "—"}${others.length ? `; ${esc(w.otherEvents)}: ${others.join(", ")}` : ""}`;
  if (!img) return `<figure class="photo"><p class="muted">${esc(w.noImage)}</p><figcaption>${caption}</figcaption></figure>`;
  const b = box(img, big ? BIG : SMALL);
  const style = `width:${b.w}mm;height:${b.h}mm`;
  const pic = draft ? `<div class="img" style="${style}"></div>` : `<img class="img" src="${esc(img.src)}" alt="${esc(`${w.photo} ${i + 1}`)}" style="${style}">`;
  return `<figure class="photo">${pic}<figcaption>${caption}</figcaption></figure>`;
}

export function renderExhibit(index: number, f: ExhibitFacts, images: (PrintedImage | null)[], c: ExhibitContext): ExhibitRender {
  const id = `x${index + 1}`;
  const head = `<section class="exhibit page" id="${id}"><h2>${esc(c.w.exhibit)} ${esc(f.number)} <span class="ref">· ${esc(f.body.ref)}</span></h2>${facts(f, c)}${findings(f, c)}${links(f, c)}`;
  const pics = (draft: boolean) => {
    const [first, ...rest] = f.photos;
    if (!first) return "";
    const big = photo(first, images[0] ?? null, true, 0, c, draft);
    const small = rest.map((p, i) => photo(p, images[i + 1] ?? null, false, i + 1, c, draft)).join("");
    return `${big}${small ? `<div class="photos">${small}</div>` : ""}`;
  };
  return { id, final: `${head}${pics(false)}</section>`, draft: `${head}${pics(true)}</section>` };
}
