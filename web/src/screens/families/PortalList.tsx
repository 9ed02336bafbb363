import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { portal } from "./api.ts";
import { useReportName } from "./shared.tsx";
import "./families.css";

/** A family member's own reports, with whether a caseworker has shared anything yet. Nothing else is shown here. */
export function PortalList(_props: ScreenProps) {
  const { t } = useTranslation();
  const name = useReportName();
  const list = useAsync(() => portal.reports(), []);
  return (
    <section aria-labelledby="portal-title" className="fam-portal">
      <h1 id="portal-title">{t("families.portal.title")}</h1>
      <p>{t("families.portal.intro")}</p>
      <p>
        <Link to="/portal/new" data-testid="portal-new-report">
          {t("families.portal.newReport")}
        </Link>
      </p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <p className="muted">{t("app.loading")}</p>}
      {list.data?.length === 0 && <p>{t("families.portal.noReports")}</p>}
      <ul className="fam-plain" data-testid="portal-reports">
        {list.data?.map((r) => (
          <li key={r.id} className="card">
            <h2>
              <Link to={`/portal/reports/${r.id}`} dir="auto">
                {name(r)}
              </Link>
            </h2>
            <p className="muted small">
              {t("families.portal.refLabel")} <span dir="ltr">{r.ref}</span>
            </p>
            <p>{t(r.mergedInto ? "families.portal.merged" : r.status === "submitted" ? "families.portal.submitted" : r.matches > 0 ? "families.portal.hasNews" : "families.portal.searching")}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
