import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link, navigate } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useAct } from "../catalogue/shared.tsx";
import { dossiers } from "./api.ts";
import "./dossiers.css";

/** Every dossier, newest first, and (for those who build them) a form to open a new one. */
export function DossiersList(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const list = useAsync(() => dossiers.list(), []);
  const { busy, error, act } = useAct();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");

  const create = async (e: FormEvent) => {
    e.preventDefault();
    await act(async () => {
      const d = await dossiers.create(name.trim(), description.trim());
      navigate(`/dossiers/${d.id}`);
    });
  };

  return (
    <section aria-labelledby="dossiers-title">
      <div className="screen-head">
        <h1 id="dossiers-title">{t("dossiers.list.title")}</h1>
      </div>
      <p className="muted small">{t("dossiers.list.intro")}</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <p className="muted">{t("app.loading")}</p>}
      {list.data && list.data.length === 0 && <p>{t("dossiers.list.empty")}</p>}
      {list.data && list.data.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="dossiers">
            <caption className="sr-only">{t("dossiers.list.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("dossiers.fields.name")}</th>
                <th scope="col">{t("dossiers.fields.versions")}</th>
                <th scope="col">{t("dossiers.fields.updated")}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <Link to={`/dossiers/${d.id}`}>
                      <span dir="auto">{d.name}</span>
                    </Link>
                    {d.draftChanged && <span className="dos-badge">{t("dossiers.list.draftChanged")}</span>}
                  </th>
                  <td>{fmt.num(d.frozenVersions)}</td>
                  <td>{fmt.dateTime(d.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {session.can("dossier.edit") && (
        <form className="dos-form" onSubmit={(e) => void create(e)} data-testid="dossier-create">
          <h2>{t("dossiers.create.title")}</h2>
          <div className="field">
            <label htmlFor="dos-name">{t("dossiers.fields.name")}</label>
            <input id="dos-name" dir="auto" required maxLength={300} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="dos-description">{t("dossiers.fields.description")}</label>
            <textarea id="dos-description" dir="auto" maxLength={8000} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
          </div>
          <ErrorNote error={error} />
          <button type="submit" className="primary" disabled={busy || !name.trim()}>
            {t("dossiers.create.submit")}
          </button>
        </form>
      )}
    </section>
  );
}
