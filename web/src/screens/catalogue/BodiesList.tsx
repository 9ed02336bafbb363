import { useTranslation } from "react-i18next";
import { Link, useLocation } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { SensitivityBadge, useTerms } from "./shared.tsx";

/**
 * The body records in reference order, a page at a time (keyset: ?after=<last reference number>, so a page
 * can be shared as a link). Merged records are left out: they live on inside the record they went into.
 */
const PAGE = 50;

export function BodiesList(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { search } = useLocation();
  const afterParam = search.get("after");
  const after = afterParam !== null && /^\d+$/.test(afterParam) ? Number(afterParam) : undefined;
  const page = useAsync(() => catalogue.bodies(after, PAGE), [after]);
  const hospitals = useTerms("hospital");
  const rows = page.data?.items ?? [];

  return (
    <section aria-labelledby="bodies-title">
      <div className="screen-head">
        <h1 id="bodies-title">{t("catalogue.bodies.title")}</h1>
        <Link to="/groupings">{t("catalogue.groupings.title")}</Link>
      </div>
      <p className="muted small">{t("catalogue.bodies.intro")}</p>
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <p className="muted">{t("app.loading")}</p>}
      {page.data && rows.length === 0 && <p>{after === undefined ? t("catalogue.bodies.empty") : t("catalogue.bodies.noMore")}</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="bodies">
            <caption className="sr-only">{t("catalogue.bodies.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("catalogue.body.ref")}</th>
                <th scope="col">{t("catalogue.numbers.roles.detainee")}</th>
                <th scope="col">{t("catalogue.numbers.roles.branch")}</th>
                <th scope="col">{t("catalogue.numbers.roles.examiner")}</th>
                <th scope="col">{t("catalogue.fields.photoDate")}</th>
                <th scope="col">{t("catalogue.fields.hospital")}</th>
                <th scope="col">{t("catalogue.fields.identificationStatus")}</th>
                <th scope="col">{t("catalogue.body.reviewStatus")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr key={b.id}>
                  <th scope="row">
                    <Link to={`/bodies/${b.id}`} dir="ltr">
                      {b.ref}
                    </Link>{" "}
                    {b.sensitivity !== "internal" && <SensitivityBadge value={b.sensitivity} />}
                  </th>
                  <td dir="auto">{b.detaineeNo ?? "—"}</td>
                  <td dir="auto">{b.branchNo ?? "—"}</td>
                  <td dir="auto">{b.examinerNo ?? "—"}</td>
                  <td>{b.photoDate ? fmt.wallDate(b.photoDate) : "—"}</td>
                  <td>{hospitals.label(b.hospital)}</td>
                  <td>{t(`catalogue.identification.${b.identificationStatus}`)}</td>
                  <td>{t(`catalogue.review.${b.reviewStatus}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="cat-pager" aria-label={t("catalogue.pager")}>
        {after !== undefined && <Link to="/bodies">{t("catalogue.firstPage")}</Link>}
        {page.data?.next != null && <Link to={`/bodies?after=${page.data.next}`}>{t("catalogue.nextPage")}</Link>}
      </nav>
    </section>
  );
}
