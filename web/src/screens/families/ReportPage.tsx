import { useTranslation } from "react-i18next";
import type { CaseView } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { families } from "./api.ts";
import { Candidates } from "./Candidates.tsx";
import { CaseConsent, CaseMembers, CaseRequests } from "./CaseParts.tsx";
import { Disclosures } from "./Disclosures.tsx";
import { Referrals } from "./Referrals.tsx";
import { ReportDetails } from "./ReportDetails.tsx";
import { useReportName } from "./shared.tsx";
import "./families.css";

/**
 * One report as a caseworker works it: what the family said, the ranked candidates with their evidence in
 * words (no photograph here), a decision on each, the staged disclosure, the family's requests and consent, and
 * the DNA referrals whose results the ranking obeys.
 */
export function ReportPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const name = useReportName();
  const id = params.id!;
  const kase = useAsync(() => families.caseOf(id), [id]);
  const cands = useAsync(() => families.candidates(id, 10), [id]);
  const reload = async () => {
    await Promise.all([kase.reload(), cands.reload()]);
  };

  if (!kase.data)
    return (
      <section aria-labelledby="fam-report-title">
        <h1 id="fam-report-title">{t("families.report.title")}</h1>
        <ErrorNote error={kase.error} />
        {kase.loading && <p className="muted">{t("app.loading")}</p>}
      </section>
    );
  const c: CaseView = kase.data;
  const r = c.report;
  return (
    <section aria-labelledby="fam-report-title" data-testid="report-page">
      <div className="screen-head">
        <h1 id="fam-report-title">
          <span dir="ltr">{r.ref}</span> · <span dir="auto">{name(r)}</span>
        </h1>
        <Link to="/families/reports">{t("families.reports.back")}</Link>
      </div>
      <div className="fam-columns">
        <div>
          <ReportDetails report={r} />
          <CaseConsent kase={c} onChange={reload} />
          <CaseMembers kase={c} onChange={reload} />
          <Referrals kase={c} onChange={reload} />
        </div>
        <div>
          <ErrorNote error={cands.error} />
          <Candidates kase={c} candidates={cands.data?.candidates ?? null} onChange={reload} />
          <CaseRequests kase={c} onChange={reload} />
          <Disclosures kase={c} onChange={reload} />
        </div>
      </div>
    </section>
  );
}
