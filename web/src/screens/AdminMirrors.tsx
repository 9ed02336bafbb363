import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { useAsync } from "../components/useAsync.ts";

/** The admin's view of the mirrors granted a copy (granted and revoked with `dalil mirror …`). */
export function AdminMirrors() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const m = useAsync(() => api.mirrors(), []);
  return (
    <section aria-labelledby="mirrors-title" data-testid="mirrors">
      <h2 id="mirrors-title">{t("mirrors.title")}</h2>
      <p className="small">{t("mirrors.intro")}</p>
      <ErrorNote error={m.error} />
      {m.data && m.data.length === 0 && <p>{t("mirrors.none")}</p>}
      {m.data && m.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t("mirrors.name")}</th>
                <th scope="col">{t("mirrors.granted")}</th>
                <th scope="col">{t("mirrors.state")}</th>
                <th scope="col">{t("mirrors.lastFetched")}</th>
              </tr>
            </thead>
            <tbody>
              {m.data.map((g) => (
                <tr key={g.id}>
                  <th scope="row" dir="auto">
                    {g.name}
                  </th>
                  <td>{fmt.dateTime(g.createdAt)}</td>
                  <td>{g.revokedAt ? t("mirrors.revoked", { at: fmt.dateTime(g.revokedAt) }) : t("mirrors.live")}</td>
                  <td>{g.lastSeenAt ? fmt.dateTime(g.lastSeenAt) : t("mirrors.never")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
