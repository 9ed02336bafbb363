import type { Vocabularies } from "../../catalogue/index.ts";
import type { BodyFacts, EntityFacts, ExhibitFacts, LinkFacts, PhotoExhibitFacts, PhotoFacts, ReviewFacts } from "./gather.ts";
import type { Words } from "./i18n.ts";
import type { PrintedImage } from "./images.ts";
import { esc } from "./esc.ts";
import { CONTENT_WIDTH_MM } from "./style.ts";

/**
 * One exhibit's section, by kind. A body: its numbers and facts, findings, reviews, links with their reasoning,
 * and each photo with its SHA-256 and custody log indexes. A photograph: its image, SHA-256, log indexes and the
 * body it belongs to. A review: its signed findings as the preparer may read them. A facility, unit or person:
 * the catalogue's record and its links. Every kind carries the exhibit's reasoning. Rendered once per exhibit as
 * the exhibits stream through, then dropped: only this text is kept.
 */
export interface ExhibitRender {
  /** Section id (anchor for the contents). */
  id: string;
  /** What the contents print after the number (a body's reference, a photo's kind and short hash, a name). */
  label: string;
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

function term(c: ExhibitContext, v: "hospital" | "finding" | "branch" | "governorate", code: string | null): string {
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

/** A number as printed, with what the records say of it: who checked it and when, or that no one did. */
function numberText(f: BodyFacts, role: "detainee" | "branch" | "examiner", shown: string, c: ExhibitContext): string {
  const { w } = c;
  const n = f.numbers.find((x) => x.role === role);
  if (!n) return esc(shown);
  // The checker's address and role are isolated, so an Arabic sentence keeps the Latin address in one piece.
  const notes = [n.check ? esc(w.checkedBy).replace("{who}", `<bdi>${esc(n.check.by)}</bdi>`).replace("{date}", `<bdi>${esc(n.check.on)}</bdi>`) : esc(w.notChecked)];
  if (n.method === "ocr") notes.unshift(esc(w.readByMachine));
  return `<bdi>${esc(shown)}</bdi><br><span class="${n.check ? "muted" : "unchecked"}">${notes.join(c.lang === "ar" ? "؛ " : "; ")}</span>`;
}

function facts(f: BodyFacts, c: ExhibitContext): string {
  const b = f.body;
  const { w } = c;
  const rows: [string, string][] = [
    [w.body, esc(b.ref)],
    [w.detaineeNo, b.detaineeNo ? numberText(f, "detainee", b.detaineeNo, c) : esc(w.unknown)],
    [w.branchNo, b.branchNo ? numberText(f, "branch", branchText(c, b.branchNo), c) : esc(w.unknown)],
    [w.examinerNo, b.examinerNo ? numberText(f, "examiner", b.examinerNo, c) : esc(w.unknown)],
    [w.hospital, esc(term(c, "hospital", b.hospital))],
    [w.photoDate, esc(b.photoDate ?? w.unknown)],
    [w.deathDate, esc(b.deathDate?.text ?? w.unknown)],
    [w.sex, esc(b.sex === "male" ? w.male : b.sex === "female" ? w.female : w.unknown)],
    [w.age, esc(b.ageMin !== null || b.ageMax !== null ? `${b.ageMin ?? "?"}–${b.ageMax ?? "?"}` : w.unknown)],
  ];
  if (b.identificationStatus === "identified") {
    // a body identified through a family's report may carry no name (the family did not agree to share it)
    const name = [b.nameAr, b.nameLat].filter(Boolean).join(" / ");
    rows.push([w.identification, c.showNames && name ? esc(name) : esc(w.identifiedUnnamed)]);
  }
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join("")}</dl>`;
}

function findings(f: BodyFacts, c: ExhibitContext): string {
  const { w } = c;
  const sep = c.lang === "ar" ? "، " : ", ";
  const list = (codes: string[]) => (codes.length ? codes.map((x) => esc(term(c, "finding", x))).join(sep) : esc(w.none));
  const out = [`<h3>${esc(w.findings)}</h3><dl class="facts"><dt>${esc(w.injuries)}</dt><dd>${list(f.body.injuries)}</dd><dt>${esc(w.reviewFindings)}</dt><dd>${f.body.reviewFindings.length ? list(f.body.reviewFindings) : esc(w.reviewNone)}</dd></dl>`];
  if (f.reviews.length || f.hiddenReviews) {
    out.push(`<h3>${esc(w.reviews)}</h3><ul>`);
    for (const r of f.reviews) {
      const found = r.content.findings.map((x) => `${esc(term(c, "finding", x.code))} (${esc(w.confidence[x.confidence] ?? x.confidence)})`).join(sep);
      out.push(
        `<li>${esc(w.reviewBy)} <bdi>${esc(r.content.review)}</bdi> ${esc(w.version)} ${r.content.version}, ${esc(r.content.submittedAt.slice(0, 10))}: ${found || esc(w.none)}${r.content.notes ? ` — <bdi>${esc(r.content.notes)}</bdi>` : ""}<br><span class="muted">${esc(w.sha256)}</span> <span class="hash">${r.sha256}</span> · ${esc(w.logIndex)} ${r.eventSeq}</li>`,
      );
    }
    if (f.hiddenReviews) out.push(`<li class="muted">${f.hiddenReviews} ${esc(w.reviewHidden)}</li>`);
    out.push(`</ul>`);
  }
  return out.join("");
}

function linkList(list: LinkFacts[], c: ExhibitContext): string {
  const { w } = c;
  const out = ["<ul>"];
  for (const l of list) {
    out.push(`<li><b>${esc(l.type)}</b> <bdi>${esc(l.other)}</bdi> (${esc(w.confidence[l.confidence] ?? l.confidence)}):<div dir="auto">${esc(l.reasoning)}</div>${l.evidence.length ? `<span class="muted">${esc(w.evidence)}: ${l.evidence.map(esc).join("; ")}</span>` : ""}</li>`);
  }
  out.push("</ul>");
  return out.join("");
}

// Typed text takes its own direction: an Arabic reasoning in an English report is still a right-to-left paragraph.
function reasoningText(f: Pick<ExhibitFacts, "reasoning" | "evidence">, c: ExhibitContext): string {
  const out = f.reasoning.map((r) => `<p dir="auto">${esc(r)}</p>`);
  if (f.evidence.length) out.push(`<p class="muted">${esc(c.w.evidenceCited)}: <bdi>${f.evidence.map(esc).join("; ")}</bdi></p>`);
  return out.join("");
}

function links(f: BodyFacts, c: ExhibitContext): string {
  const { w } = c;
  if (!f.reasoning.length && !f.links.length && !f.evidence.length) return "";
  return `<h3>${esc(w.links)}</h3>${reasoningText(f, c)}${f.links.length ? linkList(f.links, c) : ""}`;
}

function photo(p: PhotoFacts, img: PrintedImage | null, big: boolean, i: number, c: ExhibitContext, draft: boolean): string {
  const { w } = c;
  const others = p.events.filter((s) => s !== p.ingestedAt);
  const caption = `${esc(w.photo)} ${i + 1}${p.role ? ` · ${esc(role(c, p.role))}` : ""}<br>${esc(w.sha256)} <span class="hash">${p.sha256}</span><br>${esc(w.logIndex)}: ${p.ingestedAt !== null ? `${p.ingestedAt} (${esc(w.ingested)})` : "—"}${others.length ? `; ${esc(w.otherEvents)}: ${others.join(", ")}` : ""}`;
  if (!img) return `<figure class="photo"><p class="muted">${esc(w.noImage)}</p><figcaption>${caption}</figcaption></figure>`;
  const b = box(img, big ? BIG : SMALL);
  const style = `width:${b.w}mm;height:${b.h}mm`;
  const pic = draft ? `<div class="img" style="${style}"></div>` : `<img class="img" src="${esc(img.src)}" alt="${esc(`${w.photo} ${i + 1}`)}" style="${style}">`;
  return `<figure class="photo">${pic}<figcaption>${caption}</figcaption></figure>`;
}

/** Rows of typed or looked-up text; a hash row prints in the hash style, always left to right. */
function dl(rows: [string, string][], hash?: [string, string]): string {
  const h = hash ? `<dt>${esc(hash[0])}</dt><dd><span class="hash">${esc(hash[1])}</span></dd>` : "";
  return `<dl class="facts">${h}${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd><bdi>${esc(v)}</bdi></dd>`).join("")}</dl>`;
}

export function kindName(w: Words, kind: string): string {
  return w.kindNames[kind] ?? kind;
}

function heading(id: string, f: ExhibitFacts, label: string, c: ExhibitContext): string {
  return `<section class="exhibit page" id="${id}"><h2>${esc(c.w.exhibit)} ${esc(f.number)} <span class="ref">· <bdi>${esc(label)}</bdi></span></h2>`;
}

function reasoningPart(f: ExhibitFacts, c: ExhibitContext): string {
  if (!f.reasoning.length && !f.evidence.length) return "";
  return `<h3>${esc(c.w.reasoning)}</h3>${reasoningText(f, c)}`;
}

function bodySection(id: string, f: BodyFacts, images: (PrintedImage | null)[], c: ExhibitContext): ExhibitRender {
  const head = `<section class="exhibit page" id="${id}"><h2>${esc(c.w.exhibit)} ${esc(f.number)} <span class="ref">· ${esc(f.body.ref)}</span></h2>${facts(f, c)}${findings(f, c)}${links(f, c)}`;
  const pics = (draft: boolean) => {
    const [first, ...rest] = f.photos;
    if (!first) return "";
    const big = photo(first, images[0] ?? null, true, 0, c, draft);
    const small = rest.map((p, i) => photo(p, images[i + 1] ?? null, false, i + 1, c, draft)).join("");
    return `${big}${small ? `<div class="photos">${small}</div>` : ""}`;
  };
  return { id, label: f.body.ref, final: `${head}${pics(false)}</section>`, draft: `${head}${pics(true)}</section>` };
}

function photoSection(id: string, f: PhotoExhibitFacts, images: (PrintedImage | null)[], c: ExhibitContext): ExhibitRender {
  const { w } = c;
  const p = f.photos[0]!;
  // The mark after the ellipsis keeps it at the end of the hash in an Arabic line too.
  const label = `${kindName(w, "photo")} ${p.sha256.slice(0, 12)}…\u200e`;
  const rows: [string, string][] = [];
  if (f.body) rows.push([w.inBody, `${f.body.ref} · ${w.photoOfBody.replace("{n}", String(f.body.photoNo))}`], [w.photoRole, p.role ? role(c, p.role) : w.unknown]);
  else rows.push([w.inBody, w.notGrouped]);
  const head = `${heading(id, f, label, c)}${dl(rows, [w.sha256, p.sha256])}${reasoningPart(f, c)}`;
  const pic = (draft: boolean) => photo(p, images[0] ?? null, true, 0, c, draft);
  return { id, label, final: `${head}${pic(false)}</section>`, draft: `${head}${pic(true)}</section>` };
}

function reviewSection(id: string, f: ReviewFacts, c: ExhibitContext): ExhibitRender {
  const { w } = c;
  const r = f.review;
  const label = r ? `${kindName(w, "review")} · ${r.content.bodyRef}` : kindName(w, "review");
  const out = [heading(id, f, label, c)];
  if (!r) {
    out.push(dl([[w.reviewId, f.reviewId]]), `<p class="muted">${esc(f.hidden === "blind" ? w.reviewBlind : w.reviewNotReadable)}</p>`);
  } else {
    const k = r.content;
    out.push(
      `<dl class="facts"><dt>${esc(w.reviewId)}</dt><dd><bdi>${esc(k.review)}</bdi></dd><dt>${esc(w.reviewOf)}</dt><dd><bdi>${esc(k.bodyRef)}</bdi></dd><dt>${esc(w.reviewer)}</dt><dd><bdi>${esc(f.reviewer ?? w.unknownAccount)}</bdi></dd><dt>${esc(w.submittedAt)}</dt><dd><bdi>${esc(k.submittedAt.slice(0, 10))}</bdi></dd><dt>${esc(w.reviewVersion)}</dt><dd>${k.version}</dd><dt>${esc(w.sha256)}</dt><dd><span class="hash">${r.sha256}</span></dd><dt>${esc(w.logIndex)}</dt><dd>${r.eventSeq}</dd></dl>`,
    );
    const found = k.findings.map((x) => `<li>${esc(term(c, "finding", x.code))} (${esc(w.confidence[x.confidence] ?? x.confidence)})${x.note ? ` — <bdi>${esc(x.note)}</bdi>` : ""}</li>`);
    out.push(`<h3>${esc(w.findings)}</h3>${found.length ? `<ul>${found.join("")}</ul>` : `<p>${esc(w.none)}</p>`}`);
    if (k.causes.length) out.push(`<h3>${esc(w.causes)}</h3><ul>${k.causes.map((x) => `<li>${esc(w.causeNames[x.code] ?? x.code)} (${esc(w.confidence[x.confidence] ?? x.confidence)})</li>`).join("")}</ul>`);
    if (k.notes) out.push(`<h3>${esc(w.notes)}</h3><p dir="auto">${esc(k.notes)}</p>`);
    if (k.correction) out.push(`<h3>${esc(w.correction)}</h3><p dir="auto">${esc(k.correction)}</p>`);
    if (f.supersededBy) {
      const s = f.supersededBy;
      out.push(`<p class="warning">${esc(w.supersededBy)}: <bdi>${esc(s.content.review)}</bdi> ${esc(w.version)} ${s.content.version}, ${esc(s.content.submittedAt.slice(0, 10))} · ${esc(w.logIndex)} ${s.eventSeq}</p>`);
    }
  }
  out.push(reasoningPart(f, c), "</section>");
  const html = out.join("");
  return { id, label, final: html, draft: html };
}

/**
 * A facility, unit or person of interest as the catalogue holds it. A person exhibit names an alleged
 * perpetrator: the exhibit exists to name them, so both scripts are printed at every clearance (the catalogue's
 * sensitivity already decided whether the preparer may read the record). `showNames` guards the identity of the
 * dead and their families, and no victim's name is printed here: linked bodies appear by their reference.
 */
function entitySection(id: string, f: EntityFacts, c: ExhibitContext): ExhibitRender {
  const { w } = c;
  const e = f.entity;
  const named = c.lang === "ar" ? (e.nameAr ?? e.nameEn) : (e.nameEn ?? e.nameAr);
  const label = `${kindName(w, f.kind)} · ${[named, e.number].filter(Boolean).join(" · ") || e.id}`;
  const names = (list: { nameAr: string | null; nameEn: string | null; number: string | null; id: string }[]) =>
    list.map((x) => (c.lang === "ar" ? (x.nameAr ?? x.nameEn) : (x.nameEn ?? x.nameAr)) ?? x.number ?? x.id).join(c.lang === "ar" ? " ← " : " → ");
  const rows: [string, string][] = [[w.kind, kindName(w, f.kind)]];
  if (e.nameAr) rows.push([w.nameAr, e.nameAr]);
  if (e.nameEn) rows.push([w.nameEn, e.nameEn]);
  if (e.number) rows.push([w.number, e.number]);
  if (e.title) rows.push([w.title, e.title]);
  if (e.governorate) rows.push([w.governorate, term(c, "governorate", e.governorate)]);
  if (e.parents.length) rows.push([w.parents, names(e.parents)]);
  if (e.commanders.length) rows.push([w.commanders, names(e.commanders)]);
  const out = [heading(id, f, label, c), dl(rows)];
  if (e.description) out.push(`<h3>${esc(w.description)}</h3><p dir="auto">${esc(e.description)}</p>`);
  out.push(reasoningPart(f, c), `<h3>${esc(w.entityLinks)}</h3>`, f.links.length ? linkList(f.links, c) : `<p class="muted">${esc(w.entityNoLinks)}</p>`, "</section>");
  const html = out.join("");
  return { id, label, final: html, draft: html };
}

export function renderExhibit(index: number, f: ExhibitFacts, images: (PrintedImage | null)[], c: ExhibitContext): ExhibitRender {
  const id = `x${index + 1}`;
  switch (f.kind) {
    case "body":
      return bodySection(id, f, images, c);
    case "photo":
      return photoSection(id, f, images, c);
    case "review":
      return reviewSection(id, f, c);
    default:
      return entitySection(id, f, c);
  }
}
