import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link, navigate } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useAct } from "../catalogue/shared.tsx";
import { exhibitions } from "./api.ts";
import "./exhibitions.css";
import { WordsField } from "./WordsField.tsx";

/** Every exhibition with its state, and (for curators) a form to begin a new one. */
export function ExhibitionsList(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const list = useAsync(() => exhibitions.list(), []);
  const { busy, error, act } = useAct();
  const [titleAr, setTitleAr] = useState("");
  const [titleEn, setTitleEn] = useState("");

  const create = async (e: FormEvent) => {
    e.preventDefault();
    await act(async () => {
      const languages = [...(titleAr.trim() ? (["ar"] as const) : []), ...(titleEn.trim() ? (["en"] as const) : [])];
      const x = await exhibitions.create({ title: { ar: titleAr.trim() || null, en: titleEn.trim() || null }, languages });
      navigate(`/exhibitions-work/${x.ref}`);
    });
  };

  return (
    <section aria-labelledby="exh-title">
      <div className="screen-head">
        <h1 id="exh-title">{t("exhibitions.list.title")}</h1>
      </div>
      <p className="muted small">{t("exhibitions.list.intro")}</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <p className="muted">{t("app.loading")}</p>}
      {list.data && list.data.length === 0 && <p>{t("exhibitions.list.empty")}</p>}
      {list.data && list.data.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="exhibitions">
            <caption className="sr-only">{t("exhibitions.list.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("exhibitions.fields.ref")}</th>
                <th scope="col">{t("exhibitions.fields.title")}</th>
                <th scope="col">{t("exhibitions.fields.status")}</th>
                <th scope="col">{t("exhibitions.fields.items")}</th>
                <th scope="col">{t("exhibitions.fields.updated")}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((x) => (
                <tr key={x.id}>
                  <th scope="row">
                    <Link to={`/exhibitions-work/${x.ref}`}>{x.ref}</Link>
                  </th>
                  <td dir="auto">{x.title.ar && x.title.en ? `${x.title.ar} · ${x.title.en}` : (x.title.ar ?? x.title.en)}</td>
                  <td>{t(`exhibitions.status.${x.status}`)}</td>
                  <td>{fmt.num(x.items)}</td>
                  <td>{fmt.dateTime(x.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {session.can("exhibition.edit") && (
        <form className="exh-form" onSubmit={(e) => void create(e)} data-testid="exhibition-create">
          <h2>{t("exhibitions.create.title")}</h2>
          <p className="muted small">{t("exhibitions.create.help")}</p>
          <WordsField id="exh-title-ar" lang="ar" label={t("exhibitions.fields.titleAr")} value={titleAr} onChange={setTitleAr} max={300} />
          <WordsField id="exh-title-en" lang="en" label={t("exhibitions.fields.titleEn")} value={titleEn} onChange={setTitleEn} max={300} />
          <ErrorNote error={error} />
          <button type="submit" className="primary" disabled={busy || (!titleAr.trim() && !titleEn.trim())}>
            {t("exhibitions.create.submit")}
          </button>
        </form>
      )}
    </section>
  );
}
