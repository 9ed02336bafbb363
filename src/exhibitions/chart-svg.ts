/**
 * A chart item on the public pages: a horizontal bar chart as inline SVG (a title and a description for screen
 * readers, mirrored for Arabic) and the same numbers as a table, which is all the text-only page shows. A pure
 * function of the frozen data, so the same data gives the same bytes. Drawn here: the dossier report's chart
 * helper is not part of the dossiers module's exports.
 */
import type { ChartData } from "./contracts.ts";

type Lang = "ar" | "en";

const WORDS = {
  en: {
    titles: {
      byPhotoMonth: "Bodies by month of the photograph",
      byDeathMonth: "Bodies by month of death",
      byBranch: "Bodies by security branch",
      byHospital: "Bodies by hospital",
      byFinding: "Bodies by forensic finding",
    },
    desc: (k: number) => `Counts of the bodies in the archive that are open to the public; a count under ${k} is withheld.`,
    withheld: (k: number) => `fewer than ${k}`,
    unknown: "Unknown",
    imprecise: "Date not precise",
    category: "Category",
    bodies: "Bodies",
    none: "No body open to the public was counted.",
  },
  ar: {
    titles: {
      byPhotoMonth: "الجثامين حسب شهر التصوير",
      byDeathMonth: "الجثامين حسب شهر الوفاة",
      byBranch: "الجثامين حسب الفرع الأمني",
      byHospital: "الجثامين حسب المستشفى",
      byFinding: "الجثامين حسب نتيجة الفحص الطبي الشرعي",
    },
    desc: (k: number) => `أعداد الجثامين في الأرشيف المتاحة للعموم؛ يُحجب كل عدد أقل من ${k}.`,
    withheld: (k: number) => `أقل من ${k}`,
    unknown: "غير معروف",
    imprecise: "تاريخ غير دقيق",
    category: "الفئة",
    bodies: "عدد الجثامين",
    none: "لم يُحصَ أي جثمان متاح للعموم.",
  },
} as const;

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

export function chartTitle(data: ChartData, lang: Lang): string {
  return WORDS[lang].titles[data.chart];
}

function label(b: ChartData["buckets"][number], lang: Lang): string {
  const w = WORDS[lang];
  if (b.value === null) return w.unknown;
  if (b.value === "imprecise") return w.imprecise;
  return (lang === "ar" ? (b.labelAr ?? b.labelEn) : (b.labelEn ?? b.labelAr)) ?? b.value;
}

const WIDTH = 640;
const LABEL_W = 220;
const COUNT_W = 90;
const ROW_H = 22;
const BAR_H = 14;

/** The chart as SVG: `id` makes its title and description referable (unique on the page). */
export function chartSvg(data: ChartData, lang: Lang, id: string): string {
  const w = WORDS[lang];
  const rtl = lang === "ar";
  const max = Math.max(1, ...data.buckets.map((b) => b.count ?? 0));
  const barSpace = WIDTH - LABEL_W - COUNT_W - 16;
  const height = data.buckets.length * ROW_H + 8;
  const parts: string[] = [];
  data.buckets.forEach((b, i) => {
    const y = 4 + i * ROW_H;
    const bw = b.count === null ? 0 : Math.max(1, Math.round((b.count / max) * barSpace));
    const labelX = rtl ? WIDTH : LABEL_W;
    const barX = rtl ? WIDTH - LABEL_W - 8 - bw : LABEL_W + 8;
    const countX = rtl ? barX - 6 : barX + bw + 6;
    parts.push(`<text x="${labelX}" y="${y + BAR_H - 2}" text-anchor="end">${esc(label(b, lang))}</text>`);
    if (bw > 0) parts.push(`<rect x="${barX}" y="${y}" width="${bw}" height="${BAR_H}" fill="#0b4f8a"/>`);
    parts.push(`<text x="${countX}" y="${y + BAR_H - 2}" text-anchor="${rtl ? "end" : "start"}">${b.count === null ? esc(w.withheld(data.minCount)) : b.count}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-labelledby="${id}-title ${id}-desc" font-size="12"><title id="${id}-title">${esc(chartTitle(data, lang))}</title><desc id="${id}-desc">${esc(w.desc(data.minCount))}</desc>${parts.join("")}</svg>`;
}

/** The same numbers as a table: what screen readers and the text-only page read. */
export function chartTable(data: ChartData, lang: Lang): string {
  const w = WORDS[lang];
  const rows = data.buckets.map((b) => `<tr><th scope="row">${esc(label(b, lang))}</th><td>${b.count === null ? esc(w.withheld(data.minCount)) : b.count}</td></tr>`);
  if (rows.length === 0) return `<p class="note">${esc(w.none)}</p>`;
  return `<table class="chart-data"><caption>${esc(chartTitle(data, lang))}</caption><thead><tr><th scope="col">${w.category}</th><th scope="col">${w.bodies}</th></tr></thead><tbody>${rows.join("")}</tbody></table><p class="note">${esc(w.desc(data.minCount))}</p>`;
}
