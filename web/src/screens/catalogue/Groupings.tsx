import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";

/** The intake sources (cards, disks), each leading to its grouping proposals: where cataloguing starts. */
export function Groupings(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const sources = useAsync(() => api.sources(), []);
  return (
    <section aria-labelledby="groupings-title">
      <div className="screen-head">
        <h1 id="groupings-title">{t("catalogue.groupings.title")}</h1>
        <Link to="/bodies">{t("catalogue.bodies.title")}</Link>
      </div>
      <p className="muted small">{t("catalogue.groupings.intro")}</p>
      <ErrorNote error={sources.error} />
      {sources.data && sources.data.length === 0 && <p>{t("catalogue.groupings.noSources")}</p>}
      {sources.data && sources.data.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="grouping-sources">
            <caption className="sr-only">{t("catalogue.groupings.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("catalogue.groupings.source")}</th>
                <th scope="col">{t("catalogue.groupings.takenIn")}</th>
                <th scope="col">{t("catalogue.groupings.photos")}</th>
                <th scope="col">{t("catalogue.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {sources.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row" dir="auto">
                    {s.label}
                  </th>
                  <td>{fmt.dateTime(s.started_at)}</td>
                  <td>{fmt.num(s.ingested)}</td>
                  <td>
                    <Link to={`/sources/${s.id}/proposals`} data-source-id={s.id}>
                      {t("catalogue.groupings.open")}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
