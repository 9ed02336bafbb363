import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { BarChart, ColumnChart, type Datum } from "./charts.tsx";
import { download, svgText, svgToPng, toCsv } from "./export.ts";
import { formatYear } from "../search/labels.ts";

/**
 * One breakdown: its chart, the same numbers as a table (what a screen reader reads, and what a report
 * quotes), and its exports.
 */
interface Props {
  id: string;
  title: string;
  /** What the table's first column holds. */
  what: string;
  /** Everything, unknown and withheld included (the table). */
  rows: Datum[];
  /** What the chart draws (months: every month, gaps filled). */
  chart: Datum[];
  kind: "bars" | "months";
  fileStem: string;
}

export function Figure({ id, title, what, rows, chart, kind, fileStem }: Props) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const svg = useRef<SVGSVGElement>(null);
  const [error, setError] = useState<unknown>(null);
  const withheld = t("statistics.withheld");
  const common = { id: `${id}-chart`, title, data: chart, rtl: lang === "ar", num: fmt.num, withheld };
  const exportSvg = () => svg.current && download(`${fileStem}.svg`, new Blob([svgText(svg.current)], { type: "image/svg+xml" }));
  const exportPng = async () => {
    try {
      if (svg.current) download(`${fileStem}.png`, await svgToPng(svg.current));
    } catch (e) {
      setError(e);
    }
  };
  const exportCsv = () => download(`${fileStem}.csv`, new Blob([toCsv(rows.map((r) => ({ breakdown: id, value: r.key, label: r.label, count: r.count })))], { type: "text/csv;charset=utf-8" }));
  return (
    <section className="stat-figure" aria-labelledby={`${id}-h`} data-testid={`stat-${id}`}>
      <h2 id={`${id}-h`}>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">{t("statistics.empty")}</p>
      ) : (
        <>
          <div className="stat-chart-wrap">
            {chart.length === 0 ? (
              <p className="muted">{t("statistics.noChart")}</p>
            ) : kind === "bars" ? (
              <BarChart ref={svg} {...common} />
            ) : (
              <ColumnChart ref={svg} {...common} year={(m) => formatYear(m, fmt.locale)} />
            )}
          </div>
          <div className="actions stat-exports">
            <button type="button" onClick={exportCsv} data-testid={`stat-${id}-csv`}>
              {t("statistics.exportCsv")}
            </button>
            <button type="button" onClick={exportSvg}>
              {t("statistics.exportSvg")}
            </button>
            <button type="button" onClick={() => void exportPng()}>
              {t("statistics.exportPng")}
            </button>
          </div>
          <ErrorNote error={error} />
          <details>
            <summary>{t("statistics.table")}</summary>
            <table className="table stat-table">
              <caption className="sr-only">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">{what}</th>
                  <th scope="col">{t("statistics.bodies")}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.key}>
                    <th scope="row" dir="auto">
                      {r.label}
                    </th>
                    <td>{r.count === null ? withheld : fmt.num(r.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
