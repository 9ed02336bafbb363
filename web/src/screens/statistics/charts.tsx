import { forwardRef } from "react";

/**
 * Charts drawn as plain SVG: every colour, size and font is an attribute, so the exported file looks as the
 * page does. Horizontal bars for categories (mirrored in Arabic: labels on the right, bars growing left);
 * columns for months, in time order from left to right in both languages, with empty months drawn as gaps.
 * Text is laid out left to right whatever the page's direction (positions are computed here, and an exported
 * file has no page around it), the words themselves keep their own direction.
 */
export interface Datum {
  key: string;
  label: string;
  /** null: withheld. */
  count: number | null;
}

interface ChartProps {
  id: string;
  title: string;
  data: Datum[];
  rtl: boolean;
  num: (n: number) => string;
  withheld: string;
}

const FONT = "Noto Naskh Arabic, Noto Sans, DejaVu Sans, sans-serif";
const INK = "#1b2430";
const MUTED = "#505b66";
const BAR = "#1f4e6b";
const GRID = "#d8d4cc";
const W = 680;

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export const BarChart = forwardRef<SVGSVGElement, ChartProps>(function BarChart({ id, title, data, rtl, num, withheld }, ref) {
  const rowH = 28;
  const labelW = 250;
  const numW = 90;
  const top = 8;
  const H = top * 2 + Math.max(1, data.length) * rowH;
  const barMax = W - labelW - numW - 12;
  const max = Math.max(1, ...data.map((d) => d.count ?? 0));
  return (
    <svg ref={ref} viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-labelledby={`${id}-t`} className="stat-chart" fontFamily={FONT} fontSize="13" direction="ltr">
      <title id={`${id}-t`}>{title}</title>
      <rect x="0" y="0" width={W} height={H} fill="#ffffff" />
      {data.map((d, i) => {
        const y = top + i * rowH;
        const w = d.count === null ? 0 : Math.max(d.count > 0 ? 2 : 0, (d.count / max) * barMax);
        const barX = rtl ? W - labelW - w : labelW;
        const labelX = rtl ? W - labelW + 8 : labelW - 8;
        const numX = rtl ? barX - 6 : barX + w + 6;
        return (
          <g key={d.key}>
            <text x={labelX} y={y + rowH / 2 + 4} textAnchor={rtl ? "start" : "end"} fill={INK}>
              {clip(d.label, 34)}
            </text>
            {d.count !== null && <rect x={barX} y={y + 5} width={w} height={rowH - 10} fill={BAR} rx="2" />}
            <text x={numX} y={y + rowH / 2 + 4} textAnchor={rtl ? "end" : "start"} fill={d.count === null ? MUTED : INK}>
              {d.count === null ? withheld : num(d.count)}
            </text>
          </g>
        );
      })}
    </svg>
  );
});

/** Every month from the first to the last (a month with no body is a gap, not a missing column). */
export function fillMonths(data: Datum[], label: (month: string) => string): Datum[] {
  const months = data.filter((d) => /^\d{4}-\d{2}$/.test(d.key));
  if (months.length === 0) return [];
  const byKey = new Map(months.map((d) => [d.key, d]));
  const [y0, m0] = months[0]!.key.split("-").map(Number) as [number, number];
  const [y1, m1] = months[months.length - 1]!.key.split("-").map(Number) as [number, number];
  const out: Datum[] = [];
  for (let y = y0, m = m0; y < y1 || (y === y1 && m <= m1); m === 12 ? (y++, (m = 1)) : m++) {
    const key = `${y}-${String(m).padStart(2, "0")}`;
    out.push(byKey.get(key) ?? { key, label: label(key), count: 0 });
  }
  return out;
}

export const ColumnChart = forwardRef<SVGSVGElement, ChartProps & { year: (month: string) => string }>(function ColumnChart({ id, title, data, num, withheld, year }, ref) {
  const H = 280;
  const left = 56;
  const bottom = 44;
  const top = 16;
  const step = Math.max(8, Math.min(36, Math.floor((W - left - 16) / Math.max(1, data.length))));
  const width = Math.max(W, left + 16 + step * data.length);
  const plotH = H - top - bottom;
  const max = Math.max(1, ...data.map((d) => d.count ?? 0));
  const ticks = [0, Math.round(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  return (
    <svg ref={ref} viewBox={`0 0 ${width} ${H}`} width={width} height={H} role="img" aria-labelledby={`${id}-t`} className="stat-chart" fontFamily={FONT} fontSize="12" direction="ltr">
      <title id={`${id}-t`}>{title}</title>
      <rect x="0" y="0" width={width} height={H} fill="#ffffff" />
      {ticks.map((v) => {
        const y = top + plotH - (v / max) * plotH;
        return (
          <g key={v}>
            <line x1={left} x2={width - 8} y1={y} y2={y} stroke={GRID} />
            <text x={left - 6} y={y + 4} textAnchor="end" fill={MUTED}>
              {num(v)}
            </text>
          </g>
        );
      })}
      {data.map((d, i) => {
        const x = left + i * step;
        const h = d.count === null ? 0 : (d.count / max) * plotH;
        const first = i === 0 || d.key.endsWith("-01");
        return (
          <g key={d.key}>
            <title>{`${d.label}: ${d.count === null ? withheld : num(d.count)}`}</title>
            {d.count === null ? (
              <text x={x + step / 2} y={top + plotH - 4} textAnchor="middle" fill={MUTED} fontSize="10">
                ?
              </text>
            ) : (
              <rect x={x + 1} y={top + plotH - h} width={step - 2} height={h} fill={BAR} />
            )}
            {first && (
              <>
                <line x1={x} x2={x} y1={top + plotH} y2={top + plotH + 6} stroke={MUTED} />
                <text x={x + 2} y={top + plotH + 20} fill={INK}>
                  {year(d.key)}
                </text>
              </>
            )}
          </g>
        );
      })}
      <line x1={left} x2={width - 8} y1={top + plotH} y2={top + plotH} stroke={MUTED} />
    </svg>
  );
});
