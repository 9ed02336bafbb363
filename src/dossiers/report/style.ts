/**
 * The report's print stylesheet. Logical properties throughout, so the Arabic edition mirrors with `dir="rtl"`;
 * image boxes are sized in millimetres by the template (not by the images), so the draft print that finds page
 * numbers lays out exactly as the final one.
 */
export const PAGE = { widthMm: 210, heightMm: 297, marginMm: 18 } as const;
export const CONTENT_WIDTH_MM = PAGE.widthMm - 2 * PAGE.marginMm;

export function stylesheet(fontFaces: string, lang: "ar" | "en"): string {
  const families = lang === "ar" ? `"Noto Naskh Arabic", "Noto Sans"` : `"Noto Sans", "Noto Naskh Arabic"`;
  return `${fontFaces}
@page { size: A4; margin: ${PAGE.marginMm}mm ${PAGE.marginMm}mm 20mm; }
html { font-family: ${families}, sans-serif; font-size: 10pt; line-height: 1.45; color: #111; }
body { margin: 0; }
h1 { font-size: 22pt; margin-block: 0 4mm; }
h2 { font-size: 15pt; margin-block: 0 3mm; border-block-end: 0.4pt solid #444; padding-block-end: 1mm; }
h3 { font-size: 11pt; margin-block: 4mm 1.5mm; }
p { margin-block: 0 2mm; text-align: justify; }
.page { break-before: page; }
.cover { display: flex; flex-direction: column; justify-content: center; min-height: 240mm; }
.cover .subtitle { font-size: 14pt; margin-block-end: 10mm; }
.cover dl, .facts { display: grid; grid-template-columns: max-content 1fr; gap: 1mm 5mm; margin: 0; }
.cover dt, .facts dt { font-weight: 700; }
.cover dd, .facts dd { margin: 0; }
.warning { margin-block-start: 14mm; padding: 3mm; border: 0.6pt solid #900; color: #900; }
.toc ol { list-style: none; padding: 0; margin: 0; }
.toc li { display: flex; gap: 2mm; }
.toc li .dots { flex: 1; border-block-end: 0.5pt dotted #888; margin-block-end: 1.2mm; }
.toc li.sub { padding-inline-start: 6mm; font-size: 9pt; }
.toc a { color: inherit; text-decoration: none; }
.chart { margin: 0 0 6mm; break-inside: avoid; }
.chart figcaption { font-weight: 700; margin-block-end: 1mm; }
.chart .cl { font-size: 11px; fill: #111; }
.chart .cn { font-size: 11px; fill: #333; }
.chart .cb { fill: #4a5d7e; }
.exhibit h2 .ref { font-weight: 400; font-size: 11pt; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 0 8mm; }
.photo { margin: 0 0 4mm; break-inside: avoid; }
.photo .img { display: block; background: #ddd; margin-block-end: 1mm; }
.photo figcaption { font-size: 8pt; }
.photos { display: grid; grid-template-columns: 1fr 1fr; gap: 0 6mm; }
.hash { font-size: 7.5pt; white-space: nowrap; unicode-bidi: isolate; direction: ltr; }
.muted { color: #555; }
.unchecked { font-weight: bold; }
ul { margin-block: 0 2mm; padding-inline-start: 5mm; }
pre.checkpoint { direction: ltr; text-align: left; font-size: 8.5pt; white-space: pre-wrap; word-break: break-all; border: 0.4pt solid #888; padding: 3mm; }
table.hashes { border-collapse: collapse; width: 100%; font-size: 8pt; }
table.hashes th, table.hashes td { text-align: start; padding: 0.4mm 1.5mm; border-block-end: 0.3pt solid #ccc; }
table.hashes tr { break-inside: avoid; }
`;
}
