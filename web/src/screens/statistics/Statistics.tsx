import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { BREAKDOWNS, type Breakdown, type StatBucket, type Statistics as Stats } from "../../api/types/statistics.ts";
import { navigate, useLocation } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { formatMonth, termLabel } from "../search/labels.ts";
import { fillMonths, type Datum } from "./charts.tsx";
import { download, toCsv, type CsvRow } from "./export.ts";
import { Figure } from "./Figure.tsx";
import { statisticsApi } from "./api.ts";
import "./statistics.css";

/**
 * The figures a report quotes, counted by the server over the bodies the reader may see: totals, and bodies
 * by branch, hospital, month of the photograph and of death, and review finding. For publication, counts
 * under a threshold can be withheld (?min=5 in the URL, so the same view can be shared).
 */
const THRESHOLDS = [0, 3, 5, 10] as const;
const MONTHLY: readonly Breakdown[] = ["byPhotoMonth", "byDeathMonth"];

function label(b: Breakdown, s: StatBucket, lang: string, locale: string, t: TFunction): string {
  if (s.value === null) return t("statistics.unknown");
  if (s.value === "imprecise") return t("statistics.imprecise");
  if (MONTHLY.includes(b)) return formatMonth(s.value, locale);
  if (b === "byBranch" && !s.labelAr && !s.labelEn) return t("search.branchNo", { n: s.value });
  return termLabel(s, lang);
}

export function Statistics(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const { search } = useLocation();
  const minParam = Number(search.get("min") ?? 0);
  const min = (THRESHOLDS as readonly number[]).includes(minParam) ? minParam : 0;
  const stats = useAsync(() => statisticsApi.get(min), [min]);
  const s: Stats | null = stats.data;

  const rowsOf = (b: Breakdown): Datum[] => (s ? s[b].map((x) => ({ key: x.value ?? "unknown", label: label(b, x, lang, fmt.locale, t), count: x.count })) : []);
  const day = s ? s.generatedAt.slice(0, 10) : "";
  const stem = (b: string) => `dalil-statistics-${b}-${day}${min ? `-min${min}` : ""}`;
  const totals = s
    ? ([
        ["bodies", s.totals.bodies],
        ["photos", s.totals.photos],
        ["originals", s.totals.originals],
        ["facilities", s.totals.facilities],
        ["reviewed", s.totals.reviewed],
        ["identified", s.totals.identified],
      ] as const)
    : [];
  const exportAll = () => {
    const rows: CsvRow[] = totals.map(([k, v]) => ({ breakdown: "totals", value: k, label: t(`statistics.totals.${k}`), count: v }));
    for (const b of BREAKDOWNS) for (const r of rowsOf(b)) rows.push({ breakdown: b, value: r.key, label: r.label, count: r.count });
    download(`${stem("all")}.csv`, new Blob([toCsv(rows)], { type: "text/csv;charset=utf-8" }));
  };

  return (
    <section aria-labelledby="statistics-title" className="statistics">
      <div className="screen-head">
        <h1 id="statistics-title">{t("statistics.title")}</h1>
        {s && <p className="muted">{t("statistics.countedAt", { when: fmt.dateTime(s.generatedAt) })}</p>}
      </div>
      <p className="muted small">{t("statistics.intro")}</p>
      <div className="actions">
        <label>
          {t("statistics.threshold")}{" "}
          <select value={min} onChange={(e) => navigate(Number(e.target.value) ? `/statistics?min=${e.target.value}` : "/statistics")} data-testid="stat-threshold">
            {THRESHOLDS.map((k) => (
              <option key={k} value={k}>
                {k === 0 ? t("statistics.thresholdNone") : t("statistics.thresholdUnder", { n: fmt.num(k) })}
              </option>
            ))}
          </select>
        </label>
        {s && (
          <button type="button" onClick={exportAll} data-testid="stat-csv-all">
            {t("statistics.exportAll")}
          </button>
        )}
      </div>
      {min > 0 && <p className="notice notice-warn">{t("statistics.thresholdNote", { n: fmt.num(min) })}</p>}
      <ErrorNote error={stats.error} />
      {stats.loading && !s && <p className="muted">{t("app.loading")}</p>}
      {s && (
        <>
          <dl className="stat-totals" data-testid="stat-totals">
            {totals.map(([k, v]) => (
              <div key={k} data-total={k}>
                <dt>{t(`statistics.totals.${k}`)}</dt>
                <dd>{v === null ? t("statistics.withheld") : fmt.num(v)}</dd>
              </div>
            ))}
          </dl>
          {BREAKDOWNS.map((b) => {
            const rows = rowsOf(b);
            const monthly = MONTHLY.includes(b);
            return (
              <Figure
                key={b}
                id={b}
                title={t(`statistics.charts.${b}`)}
                what={t(`statistics.what.${b}`)}
                rows={rows}
                chart={monthly ? fillMonths(rows, (m) => formatMonth(m, fmt.locale)) : rows}
                kind={monthly ? "months" : "bars"}
                fileStem={stem(b)}
              />
            );
          })}
        </>
      )}
    </section>
  );
}
