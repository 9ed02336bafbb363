import { useTranslation } from "react-i18next";
import { Link, navigate, useLocation } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { families } from "./api.ts";
import { useReportName } from "./shared.tsx";
import "./families.css";

/** Missing-person reports in reference order, a page at a time (?after=REF, shareable). */
const PAGE = 50;

export function ReportsList(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const name = useReportName();
  const { search } = useLocation();
  const after = search.get("after") ?? undefined;
  const list = useAsync(() => families.reports(after, PAGE), [after]);
  const items = list.data ?? [];

  return (
    <section aria-labelledby="fam-reports-title">
      <div className="screen-head">
        <h1 id="fam-reports-title">{t("families.reports.title")}</h1>
        <div className="actions">
          {session.can("report.file") && (
            <Link to="/families/reports/new" className="fam-button" data-testid="new-report">
              {t("families.reports.new")}
            </Link>
          )}
          {session.can("report.import") && <Link to="/families/import">{t("families.import.title")}</Link>}
        </div>
      </div>
      <p className="muted small">{t("families.reports.intro")}</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <p className="muted">{t("app.loading")}</p>}
      {list.data && items.length === 0 && <p>{t("families.reports.empty")}</p>}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="family-reports">
            <caption className="sr-only">{t("families.reports.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("families.fields.ref")}</th>
                <th scope="col">{t("families.fields.name")}</th>
                <th scope="col">{t("families.fields.sex")}</th>
                <th scope="col">{t("families.fields.arrestDate")}</th>
                <th scope="col">{t("families.fields.status")}</th>
                <th scope="col">{t("families.fields.updated")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <Link to={`/families/reports/${r.id}`} data-ref={r.ref}>
                      <span dir="ltr">{r.ref}</span>
                    </Link>
                  </th>
                  <td dir="auto">{name(r)}</td>
                  <td>{r.sex ? t(`families.sex.${r.sex}`) : "—"}</td>
                  <td dir="ltr">{r.arrestDate ?? "—"}</td>
                  <td>{t(`families.status.${r.status}`, { defaultValue: r.status })}</td>
                  <td>{fmt.dateTime(r.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="fam-pager" aria-label={t("families.pager")}>
        {after !== undefined && (
          <button type="button" className="link-button" onClick={() => navigate("/families/reports")}>
            {t("families.firstPage")}
          </button>
        )}
        {items.length === PAGE && (
          <button type="button" className="link-button" onClick={() => navigate(`/families/reports?after=${encodeURIComponent(items[items.length - 1]!.ref)}`)}>
            {t("families.nextPage")}
          </button>
        )}
      </nav>
    </section>
  );
}
