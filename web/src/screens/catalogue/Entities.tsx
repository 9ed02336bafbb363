import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { ENTITY_KINDS, type EntityKind } from "../../api/types/catalogue.ts";
import { Link, navigate, useLocation } from "../../app/router.tsx";
import { usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { EntityForm } from "./EntityForm.tsx";
import { entityName, SensitivityBadge } from "./shared.tsx";

/**
 * Facilities, units, hospitals and persons of interest: filtered by kind and searched by name or number
 * (?kind=unit&q=215, shareable), a page at a time, and a form to add one.
 */
const PAGE = 50;

export function Entities(_props: ScreenProps) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const session = useSession();
  const { search } = useLocation();
  const kind = ENTITY_KINDS.find((k) => k === search.get("kind"));
  const q = search.get("q") ?? "";
  const after = search.get("after") ?? undefined;
  const [text, setText] = useState(q);
  const [adding, setAdding] = useState(false);
  const list = useAsync(() => catalogue.entities(kind, q || undefined, after, PAGE), [kind, q, after]);

  const go = (k: EntityKind | undefined, query: string, a?: string) => {
    const p = new URLSearchParams();
    if (k) p.set("kind", k);
    if (query) p.set("q", query);
    if (a) p.set("after", a);
    const s = p.toString();
    navigate(`/entities${s ? `?${s}` : ""}`);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go(kind, text.trim());
  };

  return (
    <section aria-labelledby="entities-title">
      <div className="screen-head">
        <h1 id="entities-title">{t("catalogue.entities.title")}</h1>
        {session.can("catalogue.edit") && !adding && (
          <button type="button" onClick={() => setAdding(true)} data-testid="add-entity">
            {t("catalogue.entities.add")}
          </button>
        )}
      </div>
      <p className="muted small">{t("catalogue.entities.intro")}</p>
      {adding && (
        <section className="card" aria-labelledby="new-entity-title">
          <h2 id="new-entity-title">{t("catalogue.entities.add")}</h2>
          <EntityForm entity={null} onSaved={(e) => navigate(`/entities/${e.id}`)} onCancel={() => setAdding(false)} />
        </section>
      )}
      <nav aria-label={t("catalogue.entities.kindsLabel")} className="actions">
        <Link to={`/entities${q ? `?q=${encodeURIComponent(q)}` : ""}`} aria-current={kind === undefined ? "page" : undefined}>
          {t("catalogue.entities.allKinds")}
        </Link>
        {ENTITY_KINDS.map((k) => (
          <Link key={k} to={`/entities?kind=${k}${q ? `&q=${encodeURIComponent(q)}` : ""}`} aria-current={kind === k ? "page" : undefined}>
            {t(`catalogue.entities.plural.${k}`)}
          </Link>
        ))}
      </nav>
      <form className="inline-form" role="search" onSubmit={submit}>
        <div className="field">
          <label htmlFor="entity-q">{t("catalogue.entities.search")}</label>
          <input id="entity-q" type="search" dir="auto" value={text} onChange={(e) => setText(e.target.value)} />
        </div>
        <button type="submit">{t("catalogue.links.search")}</button>
      </form>
      <ErrorNote error={list.error} />
      {list.data && list.data.items.length === 0 && <p>{t("catalogue.entities.empty")}</p>}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="entities">
            <caption className="sr-only">{t("catalogue.entities.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("catalogue.entities.fields.name")}</th>
                <th scope="col">{t("catalogue.entities.fields.kind")}</th>
                <th scope="col">{t("catalogue.entities.fields.number")}</th>
                <th scope="col">{t("catalogue.entities.fields.title")}</th>
                <th scope="col">{t("catalogue.entities.fields.governorate")}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    <Link to={`/entities/${e.id}`} dir="auto">
                      {entityName({ ...e, number: null }, lang)}
                    </Link>{" "}
                    {e.sensitivity !== "internal" && <SensitivityBadge value={e.sensitivity} />}
                  </th>
                  <td>{t(`catalogue.entities.kinds.${e.kind}`)}</td>
                  <td dir="auto">{e.number ?? "—"}</td>
                  <td dir="auto">{e.title ?? "—"}</td>
                  <td dir="auto">{e.governorate ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="cat-pager" aria-label={t("catalogue.pager")}>
        {after !== undefined && (
          <button type="button" className="link-button" onClick={() => go(kind, q)}>
            {t("catalogue.firstPage")}
          </button>
        )}
        {list.data?.next != null && (
          <button type="button" className="link-button" onClick={() => go(kind, q, list.data!.next!)}>
            {t("catalogue.nextPage")}
          </button>
        )}
      </nav>
    </section>
  );
}
