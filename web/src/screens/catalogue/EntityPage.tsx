import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { EntitySummary } from "../../api/types/catalogue.ts";
import { Link } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { Pair } from "../../components/Pair.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { EntityForm } from "./EntityForm.tsx";
import { LinksSection } from "./Links.tsx";
import { entityName, SensitivityBadge } from "./shared.tsx";
import { Person } from "../../components/Person.tsx";

/**
 * One facility, unit, hospital or person of interest: its fields, its chain of command (the units above it,
 * the commanders above it, nearest first), its links with their evidence and reasoning, and a correction form.
 */
export function EntityPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const session = useSession();
  const id = params.id!;
  const entity = useAsync(() => catalogue.entity(id), [id]);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const e = entity.data;
  if (!e) {
    return (
      <section>
        <h1>{t("catalogue.entities.one")}</h1>
        <ErrorNote error={entity.error} />
        {entity.loading && <p className="muted">{t("app.loading")}</p>}
      </section>
    );
  }
  const canEdit = session.can("catalogue.edit");
  const chain = (list: EntitySummary[], testId: string) =>
    list.length === 0 ? (
      <span className="muted">{t("catalogue.entities.none")}</span>
    ) : (
      <ol className="cat-chain" data-testid={testId}>
        {list.map((x) => (
          <li key={x.id}>
            <Link to={`/entities/${x.id}`}>{entityName(x, lang)}</Link>
            {x.title && <span className="muted small"> · {x.title}</span>}
          </li>
        ))}
      </ol>
    );
  return (
    <section aria-labelledby="entity-title" data-testid="entity-page">
      <div className="screen-head">
        <h1 id="entity-title" dir="auto">
          {entityName(e, lang)}
        </h1>
        <span className="badge">{t(`catalogue.entities.kinds.${e.kind}`)}</span>
        <SensitivityBadge value={e.sensitivity} />
        <Link to={`/entities?kind=${e.kind}`}>{t("catalogue.entities.back")}</Link>
      </div>
      {saved && <Notice kind="ok" title={t("catalogue.fields.saved")} />}
      <div className="cat-sections">
        <div>
          <section className="card" aria-labelledby="entity-fields-title">
            <div className="screen-head">
              <h2 id="entity-fields-title">{t("catalogue.fields.title")}</h2>
              {canEdit && !editing && (
                <button type="button" onClick={() => setEditing(true)}>
                  {t("catalogue.fields.edit")}
                </button>
              )}
            </div>
            {editing ? (
              <EntityForm
                entity={e}
                onCancel={() => setEditing(false)}
                onSaved={() => {
                  setEditing(false);
                  setSaved(true);
                  void entity.reload();
                }}
              />
            ) : (
              <dl className="pairs">
                <Pair term={t("catalogue.entities.fields.nameAr")}>
                  <span dir="rtl">{e.nameAr ?? "—"}</span>
                </Pair>
                <Pair term={t("catalogue.entities.fields.nameEn")}>
                  <span dir="ltr">{e.nameEn ?? "—"}</span>
                </Pair>
                <Pair term={t("catalogue.entities.fields.number")}>
                  <bdi>{e.number ?? "—"}</bdi>
                </Pair>
                <Pair term={t("catalogue.entities.fields.title")}>
                  <span dir="auto">{e.title ?? "—"}</span>
                </Pair>
                <Pair term={t("catalogue.entities.fields.governorate")}>
                  <span dir="auto">{e.governorate ?? "—"}</span>
                </Pair>
                <Pair term={t("catalogue.entities.fields.description")}>
                  <span dir="auto">{e.description ?? "—"}</span>
                </Pair>
                <Pair term={t("catalogue.body.created")}>
                  {fmt.dateTime(e.createdAt)} · <Person id={e.createdBy} />
                </Pair>
              </dl>
            )}
          </section>
          <section className="card" aria-labelledby="chain-title">
            <h2 id="chain-title">{t("catalogue.entities.chain")}</h2>
            <dl className="pairs">
              <Pair term={t("catalogue.entities.parents")}>{chain(e.parents, "entity-parents")}</Pair>
              <Pair term={t("catalogue.entities.commanders")}>{chain(e.commanders, "entity-commanders")}</Pair>
            </dl>
          </section>
        </div>
        <div>
          <LinksSection owner={{ kind: "entity", id: e.id }} ownerKind={e.kind} canEdit={canEdit} />
        </div>
      </div>
    </section>
  );
}
