import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { reviewApi } from "./api.ts";

/**
 * A forensic reviewer's queue: the bodies assigned to them, open ones first. Who else reviews the same body
 * (in a blind double review) is not shown; the server does not say.
 */
export function Queue(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [all, setAll] = useState(false);
  const list = useAsync(async () => {
    const rows = await reviewApi.myAssignments(!all);
    // The bodies' references (B-000123) are what reviewers and reports cite; the first hundred are looked up.
    const ids = [...new Set(rows.map((r) => r.bodyId))].slice(0, 100);
    const refs = new Map((await Promise.all(ids.map((id) => reviewApi.body(id).catch(() => null)))).filter((b) => b !== null).map((b) => [b.id, b.ref]));
    return rows.map((r) => ({ ...r, ref: refs.get(r.bodyId) ?? r.bodyId }));
  }, [all]);
  const rows = list.data ?? [];
  return (
    <section aria-labelledby="review-queue-title">
      <div className="screen-head">
        <h1 id="review-queue-title">{t("review.queueTitle")}</h1>
      </div>
      <p className="muted">{t("review.queueIntro")}</p>
      <label className="tool">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> {t("review.showSubmitted")}
      </label>
      <ErrorNote error={list.error} />
      {list.data && rows.length === 0 && <p className="muted">{all ? t("review.queueNone") : t("review.queueEmpty")}</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="review-queue">
            <caption className="sr-only">{t("review.queueTitle")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("review.body")}</th>
                <th scope="col">{t("review.sample")}</th>
                <th scope="col">{t("review.kind")}</th>
                <th scope="col">{t("review.status")}</th>
                <th scope="col">{t("review.submittedAt")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link to={`/review/assignment/${encodeURIComponent(a.id)}`} data-testid="open-assignment">
                      {t("review.openBody", { id: a.ref })}
                    </Link>
                  </td>
                  <td>
                    <Link to={`/review/samples/${encodeURIComponent(a.sampleId)}`}>{t("review.openSample")}</Link>
                  </td>
                  <td>{a.double ? t("review.double") : t("review.single")}</td>
                  <td>{t(`review.itemStatus.${a.itemStatus}`, { defaultValue: a.itemStatus })}</td>
                  <td>{a.submittedAt ? fmt.dateTime(a.submittedAt) : t("review.notYet")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
