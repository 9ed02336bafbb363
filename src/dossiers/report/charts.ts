import type { Bucket } from "./stats.ts";
import { esc } from "./esc.ts";

/**
 * Horizontal bar charts as inline SVG, drawn here rather than by a charting library: a few rectangles and labels,
 * printed as vectors, mirrored for Arabic (labels on the right, bars growing to the left).
 */
const WIDTH = 640;
const LABEL_W = 250;
const COUNT_W = 44;
const ROW_H = 22;
const BAR_H = 14;
/** Past this many rows the rest are summed in one "other" row, so a chart fits on a page. */
export const MAX_ROWS = 18;

export function barChart(title: string, buckets: Bucket[], rtl: boolean, other: string): string {
  const rows = buckets.length > MAX_ROWS ? [...buckets.slice(0, MAX_ROWS - 1), { key: "\u0000other", label: other, count: buckets.slice(MAX_ROWS - 1).reduce((s, b) => s + b.count, 0) }] : buckets;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const barSpace = WIDTH - LABEL_W - COUNT_W - 16;
  const height = rows.length * ROW_H + 8;
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y = 4 + i * ROW_H;
    const w = Math.max(1, Math.round((r.count / max) * barSpace));
    const labelX = rtl ? WIDTH : LABEL_W;
    const barX = rtl ? WIDTH - LABEL_W - 8 - w : LABEL_W + 8;
    const countX = rtl ? barX - 6 : barX + w + 6;
    parts.push(
      `<text x="${labelX}" y="${y + BAR_H - 2}" text-anchor="end" class="cl">${esc(r.label)}</text>`,
      `<rect x="${barX}" y="${y}" width="${w}" height="${BAR_H}" class="cb"/>`,
      `<text x="${countX}" y="${y + BAR_H - 2}" text-anchor="${rtl ? "end" : "start"}" class="cn">${r.count}</text>`,
    );
  });
  return `<figure class="chart"><figcaption>${esc(title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" direction="ltr" role="img" aria-label="${esc(title)}">${parts.join("")}</svg></figure>`;
}
