import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { ENTITY_KINDS, SENSITIVITIES, type EntityFields, type EntityKind, type EntityView } from "../../api/types/catalogue.ts";
import { usePrefs } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { entityName, orNull, useAct } from "./shared.tsx";

/**
 * A facility, unit, hospital or person of interest, created or corrected: its names in both languages, its
 * number (branch 215), the unit or facility above it and the person in command, which make the chain of
 * command. Persons of interest default to "restricted" on the server.
 */
type Draft = Record<"number" | "nameAr" | "nameEn" | "title" | "governorate" | "parentId" | "commanderId" | "description" | "sensitivity", string>;

function draftOf(e: EntityView | null): Draft {
  return {
    number: e?.number ?? "",
    nameAr: e?.nameAr ?? "",
    nameEn: e?.nameEn ?? "",
    title: e?.title ?? "",
    governorate: e?.governorate ?? "",
    parentId: e?.parentId ?? "",
    commanderId: e?.commanderId ?? "",
    description: e?.description ?? "",
    sensitivity: e?.sensitivity ?? "",
  };
}

function fieldsOf(before: Draft, after: Draft, all: boolean): EntityFields {
  const out: EntityFields = {};
  for (const k of ["number", "nameAr", "nameEn", "title", "governorate", "parentId", "commanderId", "description"] as const) {
    if (all ? after[k].trim() !== "" : before[k] !== after[k]) out[k] = orNull(after[k]);
  }
  const s = SENSITIVITIES.find((x) => x === after.sensitivity);
  if (s && s !== before.sensitivity) out.sensitivity = s;
  return out;
}

export function EntityForm({ entity, onSaved, onCancel }: { entity: EntityView | null; onSaved: (e: EntityView) => void; onCancel?: () => void }) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const [kind, setKind] = useState<EntityKind>(entity?.kind ?? "unit");
  const [draft, setDraft] = useState<Draft>(draftOf(entity));
  const { busy, error, act } = useAct();
  // Parents and commanders are chosen from the entities on file (the first few hundred, by name).
  const parents = useAsync(() => catalogue.entities(undefined, undefined, undefined, 500), []);
  const others = (parents.data?.items ?? []).filter((x) => x.id !== entity?.id);
  const prefix = entity ? `entity-edit` : `entity-new`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let saved: EntityView | null = null;
    const ok = await act(async () => {
      const fields = fieldsOf(draftOf(entity), draft, entity === null);
      saved = entity ? await catalogue.editEntity(entity.id, { ...fields, version: entity.version }) : await catalogue.createEntity({ kind, ...fields });
    });
    if (ok && saved) {
      if (!entity) setDraft(draftOf(null));
      onSaved(saved);
    }
  };
  const text = (k: keyof Draft, dir: "ltr" | "auto" | "rtl" = "auto", area = false) => (
    <div className={`field${area ? " wide" : ""}`}>
      <label htmlFor={`${prefix}-${k}`}>{t(`catalogue.entities.fields.${k}`)}</label>
      {area ? (
        <textarea id={`${prefix}-${k}`} dir={dir} rows={3} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
      ) : (
        <input id={`${prefix}-${k}`} dir={dir} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
      )}
    </div>
  );
  const pick = (k: "parentId" | "commanderId", list: EntityView[]) => (
    <div className="field">
      <label htmlFor={`${prefix}-${k}`}>{t(`catalogue.entities.fields.${k}`)}</label>
      <select id={`${prefix}-${k}`} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}>
        <option value="">{t("catalogue.entities.none")}</option>
        {list.map((x) => (
          <option key={x.id} value={x.id}>
            {t(`catalogue.entities.kinds.${x.kind}`)}: {entityName(x, lang)}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <form onSubmit={(e) => void submit(e)} data-testid={prefix}>
      <div className="cat-form-grid">
        <div className="field">
          <label htmlFor={`${prefix}-kind`}>{t("catalogue.entities.fields.kind")}</label>
          <select id={`${prefix}-kind`} value={kind} disabled={entity !== null} onChange={(e) => setKind(ENTITY_KINDS.find((k) => k === e.target.value) ?? "unit")}>
            {ENTITY_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`catalogue.entities.kinds.${k}`)}
              </option>
            ))}
          </select>
        </div>
        {text("nameAr", "rtl")}
        {text("nameEn", "ltr")}
        {text("number", "auto")}
        {text("title")}
        {text("governorate")}
        {pick("parentId", others.filter((x) => x.kind !== "person"))}
        {pick("commanderId", others.filter((x) => x.kind === "person"))}
        <div className="field">
          <label htmlFor={`${prefix}-sensitivity`}>{t("catalogue.fields.sensitivity")}</label>
          <select id={`${prefix}-sensitivity`} value={draft.sensitivity} onChange={(e) => setDraft({ ...draft, sensitivity: e.target.value })}>
            {!entity && <option value="">{t("catalogue.entities.defaultSensitivity")}</option>}
            {SENSITIVITIES.map((s) => (
              <option key={s} value={s}>
                {t(`catalogue.sensitivity.${s}`)}
              </option>
            ))}
          </select>
        </div>
        {text("description", "auto", true)}
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {entity ? t("catalogue.fields.save") : t("catalogue.entities.create")}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            {t("common.cancel")}
          </button>
        )}
      </div>
      <ErrorNote error={error ?? parents.error} />
    </form>
  );
}
