import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Kappa, Presence, Term } from "../../api/types/review.ts";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { reviewApi } from "./api.ts";
import { termLabel } from "./draft.ts";

/**
 * Agreement between the two blind reviews of each double-reviewed body: Cohen's kappa and the observed
 * agreement per finding and pooled, as a chart drawn here (SVG) and, for screen readers and for quoting, a
 * table with the same numbers and the counts they come from.
 */
interface Row extends Presence, Kappa {
  key: string;
  label: string;
}

export function Stats(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const [sample, setSample] = useState("");
  const [applied, setApplied] = useState("");
  const data = useAsync(() => Promise.all([reviewApi.stats(applied || undefined), reviewApi.findings()]), [applied]);
  const [stats, terms] = data.data ?? [null, null];
  const dec = useMemo(() => new Intl.NumberFormat(fmt.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }), [fmt.locale]);
  const k = (v: number | null) => (v === null ? t("review.undefinedKappa") : dec.format(v));
  const rows: Row[] = stats
    ? [
        { key: "pooled", label: t("review.pooled"), ...stats.pooled },
        ...stats.codes.map((c) => ({ ...c, key: c.code, label: termLabel(terms as Term[] | null, c.code, lang) })),
        { key: "causes", label: t("review.causesPooled"), ...stats.causes },
      ]
    : [];
  return (
    <section aria-labelledby="stats-title">
      <div className="screen-head">
        <h1 id="stats-title">{t("review.statsTitle")}</h1>
      </div>
      <p className="muted">{t("review.statsIntro")}</p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(sample.trim());
        }}
      >
        <div className="field">
          <label htmlFor="stats-sample">{t("review.statsSample")}</label>
          <input id="stats-sample" dir="ltr" value={sample} onChange={(e) => setSample(e.target.value)} />
        </div>
        <button type="submit">{t("review.apply")}</button>
      </form>
      <ErrorNote error={data.error} />
      {stats && (
        <>
          <ul className="plain stat-counts" data-testid="review-counts">
            <li>{t("review.countSamples", { n: fmt.num(stats.counts.samples) })}</li>
            <li>{t("review.countSampled", { n: fmt.num(stats.counts.sampled) })}</li>
            <li>{t("review.countReviewed", { n: fmt.num(stats.counts.reviewed) })}</li>
            <li>{t("review.countInReview", { n: fmt.num(stats.counts.inReview) })}</li>
            <li>{t("review.countDisputed", { n: fmt.num(stats.counts.disputed) })}</li>
            <li>{t("review.countResolved", { n: fmt.num(stats.counts.resolved) })}</li>
            <li>{t("review.countPairs", { n: fmt.num(stats.items) })}</li>
          </ul>
          <p>{t("review.meanKappa", { v: k(stats.meanKappa) })}</p>
          {stats.items === 0 ? (
            <p className="muted">{t("review.noPairs")}</p>
          ) : (
            <KappaChart rows={rows} format={k} pct={fmt.percent} rtl={lang === "ar"} />
          )}
          <div className="table-wrap">
            <table className="table compact" data-testid="agreement-table">
              <caption>{t("review.tableCaption")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("review.finding")}</th>
                  <th scope="col">{t("review.both")}</th>
                  <th scope="col">{t("review.onlyA")}</th>
                  <th scope="col">{t("review.onlyB")}</th>
                  <th scope="col">{t("review.neither")}</th>
                  <th scope="col">{t("review.decisions")}</th>
                  <th scope="col">{t("review.observed")}</th>
                  <th scope="col">{t("review.expected")}</th>
                  <th scope="col">{t("review.kappa")}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.key} data-code={r.key}>
                    <th scope="row">{r.label}</th>
                    <td>{fmt.num(r.both)}</td>
                    <td>{fmt.num(r.onlyA)}</td>
                    <td>{fmt.num(r.onlyB)}</td>
                    <td>{fmt.num(r.neither)}</td>
                    <td>{fmt.num(r.n)}</td>
                    <td>{fmt.percent(r.observed)}</td>
                    <td>{fmt.percent(r.expected)}</td>
                    <td data-kappa={r.kappa ?? ""}>{k(r.kappa)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted small">{t("review.kappaHelp")}</p>
        </>
      )}
    </section>
  );
}

const W = 760;
const LABEL = 220;
const VALUE = 150;
const ROW = 34;
const TOP = 28;

/** Kappa (−1 to 1) and observed agreement (0 to 1) per row, on one axis with zero in the middle; mirrored in Arabic. */
function KappaChart({ rows, format, pct, rtl }: { rows: Row[]; format: (v: number | null) => string; pct: (v: number) => string; rtl: boolean }) {
  const { t } = useTranslation();
  const sep = t("review.sep");
  const plotStart = LABEL + 10;
  const plotEnd = W - VALUE;
  const mid = (plotStart + plotEnd) / 2;
  const half = (plotEnd - plotStart) / 2;
  // Positions along the reading direction, then mirrored for right-to-left.
  const x = (reading: number) => (rtl ? W - reading : reading);
  const at = (v: number) => x(mid + v * half);
  const span = (a: number, b: number) => ({ x: Math.min(at(a), at(b)), width: Math.abs(at(b) - at(a)) });
  const height = TOP + rows.length * ROW + 24;
  const anchorStart = rtl ? "end" : "start";
  const anchorEnd = rtl ? "start" : "end";
  return (
    <figure className="kappa-chart">
      <svg viewBox={`0 0 ${W} ${height}`} direction="ltr" role="img" aria-labelledby="kappa-chart-title" data-testid="kappa-chart">
        <title id="kappa-chart-title">{t("review.chartTitle")}</title>
        {[-1, -0.5, 0, 0.5, 1].map((v) => (
          <g key={v}>
            <line x1={at(v)} x2={at(v)} y1={TOP - 6} y2={height - 20} className={v === 0 ? "axis zero" : "axis"} />
            <text x={at(v)} y={height - 6} textAnchor="middle" className="tick">
              {format(v)}
            </text>
          </g>
        ))}
        {rows.map((r, i) => {
          const y = TOP + i * ROW;
          const kb = r.kappa === null ? null : span(0, r.kappa);
          const ob = span(0, r.observed);
          return (
            <g key={r.key} data-code={r.key}>
              <text x={x(LABEL)} y={y + 14} textAnchor={anchorEnd} className={i === 0 ? "label strong" : "label"}>
                {r.label}
              </text>
              {kb ? <rect className="bar kappa" x={kb.x} y={y + 2} width={Math.max(kb.width, 1)} height={12} /> : <text x={at(0)} y={y + 13} className="tick" textAnchor={anchorStart} dx={rtl ? -4 : 4}>{format(null)}</text>}
              <rect className="bar observed" x={ob.x} y={y + 17} width={Math.max(ob.width, 1)} height={7} />
              <text x={x(plotEnd + 6)} y={y + 14} textAnchor={anchorStart} className="value">
                {format(r.kappa)}{sep}{pct(r.observed)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="chart-legend">
        <span className="swatch kappa" aria-hidden="true" /> {t("review.legendKappa")} <span className="swatch observed" aria-hidden="true" /> {t("review.legendObserved")}
      </figcaption>
    </figure>
  );
}
