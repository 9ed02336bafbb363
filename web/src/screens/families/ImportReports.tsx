import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { ReportImportReport } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote, ServerText } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";
import "./families.css";

/** Reports from a CSV file: checked first (nothing saved), then imported all or nothing, every rejected row named. */
export function ImportReports(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [csv, setCsv] = useState("");
  const [result, setResult] = useState<ReportImportReport | null>(null);
  const act = useAct();
  const busy = act.busy;
  const run = (dryRun: boolean) => act.run(async () => setResult(await families.importCsv(csv, dryRun)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(true);
  };
  return (
    <section aria-labelledby="fam-import-title">
      <div className="screen-head">
        <h1 id="fam-import-title">{t("families.import.title")}</h1>
        <Link to="/families/reports">{t("families.reports.back")}</Link>
      </div>
      <p className="muted small">{t("families.import.intro")}</p>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="import-file">{t("families.import.file")}</label>
          <input id="import-file" type="file" accept=".csv,text/csv" onChange={(e) => void e.target.files?.[0]?.text().then((s) => (setCsv(s), setResult(null)))} />
        </div>
        <div className="field">
          <label htmlFor="import-text">{t("families.import.text")}</label>
          <textarea id="import-text" dir="auto" rows={8} value={csv} onChange={(e) => (setCsv(e.target.value), setResult(null))} />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy || !csv.trim()}>
            {t("families.import.check")}
          </button>
          <button type="button" disabled={busy || !result?.ok || !result.dryRun} onClick={() => void run(false)}>
            {t("families.import.run")}
          </button>
        </div>
      </form>
      <ErrorNote error={act.error} />
      {result && (
        <section className="card" aria-labelledby="import-result-title" data-testid="import-result">
          <h2 id="import-result-title">{t(result.dryRun ? "families.import.checked" : "families.import.done")}</h2>
          <p role="status">{t("families.import.summary", { rows: fmt.num(result.rows), created: fmt.num(result.created), rejected: fmt.num(result.rejected.length) })}</p>
          {result.ignoredColumns.length > 0 && (
            <p className="muted small">
              {t("families.import.ignored")} <span dir="ltr">{result.ignoredColumns.join(", ")}</span>
            </p>
          )}
          {result.rejected.length > 0 && (
            <div className="table-wrap">
              <table className="table">
                <caption>{t("families.import.rejected")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("families.import.row")}</th>
                    <th scope="col">{t("families.import.column")}</th>
                    <th scope="col">{t("families.import.problem")}</th>
                  </tr>
                </thead>
                <tbody>
                  {result.rejected.map((r, i) => (
                    <tr key={i}>
                      <td>{fmt.num(r.row)}</td>
                      <td dir="ltr">{r.column ?? "—"}</td>
                      <td>
                        <ServerText text={r.message} messageKey={r.key} params={r.params} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </section>
  );
}
