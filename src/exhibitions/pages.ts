/**
 * The public pages of an exhibition, as pure functions of what is published: a door page with the content warning
 * in both languages, and per language a page where every image waits behind its own choice (a <details> the
 * visitor opens; graphic items say what they show first) and a text-only page with no image at all. Plain HTML and
 * one style sheet, no script: the same files are served by dalil at /exhibitions/<ref>/ and exported as a static
 * folder any web host can serve. Arabic pages are right-to-left.
 */
import type { ChartData, Layers } from "./contracts.ts";
import { chartSvg, chartTable } from "./chart-svg.ts";

export type Lang = "ar" | "en";

export interface PageItem {
  position: number;
  kind: "photo" | "body" | "text" | "chart";
  caption: { ar: string | null; en: string | null };
  graphic: boolean;
  layers: Layers;
  /** The published image's file (images/01.jpg), or null: a text panel, or an image not shown at all. */
  file: string | null;
  width: number | null;
  height: number | null;
  /** A chart item's frozen numbers (null for other kinds). */
  chart?: ChartData | null;
}

export interface PageInput {
  ref: string;
  title: { ar: string | null; en: string | null };
  statement: { ar: string | null; en: string | null };
  languages: Lang[];
  items: PageItem[];
}

const WORDS = {
  en: {
    warningTitle: "Content warning",
    warning:
      "This exhibition shows photographs of people who died in detention. Some images show injuries and death. Faces, numbers and marks that could identify a person are covered. Every image stays hidden until you choose to see it.",
    enter: "Enter the exhibition",
    textOnly: "Text only (no images)",
    graphic: "This image shows a body with injuries.",
    show: "Show the image",
    notShown: "The image is not shown: the person is represented by this text alone.",
    silhouette: "Shown as a silhouette only.",
    redacted: "Faces, numbers and identifying marks are covered with solid fills.",
    item: "Item",
    manifest: "Where each image came from (manifest)",
    verify: "How to check this exhibition",
    other: "العربية",
    textMode: "Text-only version",
    imageMode: "Version with images (hidden until chosen)",
  },
  ar: {
    warningTitle: "تنبيه بشأن المحتوى",
    warning:
      "يعرض هذا المعرض صورًا لأشخاص فارقوا الحياة في أماكن الاحتجاز. تُظهر بعض الصور إصابات وموتًا. الوجوه والأرقام والعلامات التي قد تكشف هوية شخص مغطّاة. تبقى كل صورة مخفية حتى تختار أن تراها.",
    enter: "الدخول إلى المعرض",
    textOnly: "نص فقط (من دون صور)",
    graphic: "تُظهر هذه الصورة جثمانًا عليه آثار إصابات.",
    show: "اعرض الصورة",
    notShown: "الصورة غير معروضة: يُمثَّل الشخص بهذا النص وحده.",
    silhouette: "معروضة على هيئة ظلّ فقط.",
    redacted: "الوجوه والأرقام والعلامات المميِّزة مغطّاة بألوان مصمتة.",
    item: "العنصر",
    manifest: "مصدر كل صورة (البيان)",
    verify: "كيف تتحقق من هذا المعرض",
    other: "English",
    textMode: "النسخة النصية",
    imageMode: "النسخة المصوّرة (الصور مخفية حتى تختارها)",
  },
} as const;

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Text in the page's language, or in the other one marked as such (lang and dir) when only that exists. */
function said(v: { ar: string | null; en: string | null }, lang: Lang, tag = "span"): string {
  const mine = v[lang];
  if (mine) return `<${tag}>${escapeHtml(mine)}</${tag}>`;
  const other: Lang = lang === "ar" ? "en" : "ar";
  const theirs = v[other];
  return theirs ? `<${tag} lang="${other}" dir="${other === "ar" ? "rtl" : "ltr"}">${escapeHtml(theirs)}</${tag}>` : "";
}

function head(lang: Lang, title: string): string {
  return `<!doctype html>
<html lang="${lang}" dir="${lang === "ar" ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="style.css">
</head>
`;
}

function titleOf(p: PageInput, lang: Lang): string {
  return p.title[lang] ?? p.title[lang === "ar" ? "en" : "ar"] ?? p.ref;
}

/** The door: the content warning in every language of the exhibition, and the ways in. */
export function doorPage(p: PageInput): string {
  const first = p.languages[0] ?? "en";
  const parts = p.languages.map((lang) => {
    const w = WORDS[lang];
    return `<section lang="${lang}" dir="${lang === "ar" ? "rtl" : "ltr"}" aria-labelledby="door-${lang}">
<h1 id="door-${lang}">${escapeHtml(titleOf(p, lang))}</h1>
<div class="warning" role="note"><h2>${w.warningTitle}</h2><p>${w.warning}</p></div>
<ul class="ways"><li><a href="${lang}.html">${w.enter}</a></li><li><a href="${lang}-text.html">${w.textOnly}</a></li></ul>
</section>`;
  });
  return `${head(first, titleOf(p, first))}<body>
<main>
${parts.join("\n")}
</main>
</body>
</html>
`;
}

function itemHtml(it: PageItem, lang: Lang, textOnly: boolean): string {
  const w = WORDS[lang];
  const caption = said(it.caption, lang, "p");
  if (it.kind === "text") return `<section class="panel" aria-label="${w.item} ${it.position}">${said(it.caption, lang, "p")}</section>`;
  if (it.kind === "chart") {
    if (!it.chart) return `<section class="panel" aria-label="${w.item} ${it.position}">${caption}</section>`;
    const figure = textOnly ? "" : `<figure>${chartSvg(it.chart, lang, `chart-${it.position}`)}<figcaption>${caption}</figcaption></figure>\n`;
    return `<section class="item chart" aria-label="${w.item} ${it.position}">
${figure}${textOnly ? caption : ""}${chartTable(it.chart, lang)}
</section>`;
  }
  const notes: string[] = [];
  if (it.layers.everything === "silhouette") notes.push(w.silhouette);
  else if (it.file) notes.push(w.redacted);
  if (!it.file || textOnly) {
    return `<section class="item" aria-label="${w.item} ${it.position}">${caption}${!it.file ? `<p class="note">${w.notShown}</p>` : ""}</section>`;
  }
  const alt = it.caption[lang] ?? it.caption[lang === "ar" ? "en" : "ar"] ?? `${w.item} ${it.position}`;
  return `<section class="item" aria-label="${w.item} ${it.position}">
${it.graphic ? `<p class="warning" role="note">${w.graphic}</p>` : ""}<details>
<summary>${w.show}</summary>
<figure><img src="${it.file}" alt="${escapeHtml(alt)}" width="${it.width}" height="${it.height}" loading="lazy" decoding="async"><figcaption>${caption}<span class="note">${notes.join(" ")}</span></figcaption></figure>
</details>
</section>`;
}

/** The exhibition in one language: with images hidden until chosen, or as text only. */
export function exhibitionPage(p: PageInput, lang: Lang, textOnly: boolean): string {
  const w = WORDS[lang];
  const other: Lang = lang === "ar" ? "en" : "ar";
  const nav = [
    `<a href="${lang}${textOnly ? "" : "-text"}.html">${textOnly ? w.imageMode : w.textMode}</a>`,
    ...(p.languages.includes(other) ? [`<a href="${other}${textOnly ? "-text" : ""}.html" lang="${other}" hreflang="${other}">${WORDS[lang].other}</a>`] : []),
    `<a href="manifest.json">${w.manifest}</a>`,
    `<a href="VERIFY.txt">${w.verify}</a>`,
  ];
  return `${head(lang, titleOf(p, lang))}<body>
<header><nav><ul>${nav.map((n) => `<li>${n}</li>`).join("")}</ul></nav></header>
<main>
<h1>${escapeHtml(titleOf(p, lang))}</h1>
${said(p.statement, lang, "p")}
<div class="warning" role="note"><h2>${w.warningTitle}</h2><p>${w.warning}</p></div>
${p.items.map((it) => itemHtml(it, lang, textOnly)).join("\n")}
</main>
</body>
</html>
`;
}

export const STYLE = `:root { color-scheme: light; }
body { margin: 0; font-family: system-ui, "Noto Naskh Arabic", "Noto Sans", sans-serif; line-height: 1.6; color: #1b1b1b; background: #fafafa; }
main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
header nav ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0.75rem 1rem; background: #eee; }
a { color: #0b4f8a; }
.warning { border-inline-start: 0.4rem solid #8a4b00; background: #fff4e5; padding: 0.5rem 1rem; margin: 1rem 0; }
.item, .panel { border-top: 1px solid #ccc; padding: 1rem 0; }
summary { cursor: pointer; font-weight: 600; padding: 0.5rem 0; }
img { max-width: 100%; height: auto; display: block; }
.note { display: block; color: #4a4a4a; font-size: 0.9rem; }
table.chart-data { border-collapse: collapse; margin: 0.5rem 0; }
table.chart-data th, table.chart-data td { border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: start; }
.ways { list-style: none; padding: 0; display: flex; flex-direction: column; gap: 0.5rem; }
`;
