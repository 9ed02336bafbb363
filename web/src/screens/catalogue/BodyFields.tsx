import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { IDENTIFICATION_STATUSES, SENSITIVITIES, SEXES, type BodyDetail, type BodyEdit, type HistoryEntry } from "../../api/types/catalogue.ts";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { Pair } from "../../components/Pair.tsx";
import { Link } from "../../app/router.tsx";
import { useSession } from "../../app/session.tsx";
import { catalogue } from "./api.ts";
import { orNull, useAct, useTerms, valueText } from "./shared.tsx";
import { Person } from "../../components/Person.tsx";

/**
 * A body's fields, read and edited. The edit sends only what changed, with the version the editor saw: a
 * change by someone else in between is refused (conflict) rather than silently overwritten.
 */
type Draft = {
  externalRef: string;
  hospital: string;
  photoDate: string;
  deathDate: string;
  sex: string;
  ageMin: string;
  ageMax: string;
  clothing: string;
  identificationStatus: string;
  nameAr: string;
  nameLat: string;
  notes: string;
  sensitivity: string;
};

function draftOf(b: BodyDetail): Draft {
  return {
    externalRef: b.externalRef ?? "",
    hospital: b.hospital ?? "",
    photoDate: b.photoDate ?? "",
    deathDate: b.deathDate?.text ?? "",
    sex: b.sex ?? "",
    ageMin: b.ageMin === null ? "" : String(b.ageMin),
    ageMax: b.ageMax === null ? "" : String(b.ageMax),
    clothing: b.clothing ?? "",
    identificationStatus: b.identificationStatus,
    nameAr: b.nameAr ?? "",
    nameLat: b.nameLat ?? "",
    notes: b.notes ?? "",
    sensitivity: b.sensitivity,
  };
}

const age = (s: string): number | null => (s.trim() === "" ? null : Number(s));

/** What the draft changes, as the server takes it. */
function patchOf(before: Draft, after: Draft): BodyEdit {
  const p: BodyEdit = {};
  const changed = (k: keyof Draft) => before[k] !== after[k];
  if (changed("externalRef")) p.externalRef = orNull(after.externalRef);
  if (changed("hospital")) p.hospital = orNull(after.hospital);
  if (changed("photoDate")) p.photoDate = orNull(after.photoDate);
  if (changed("deathDate")) p.deathDate = orNull(after.deathDate);
  if (changed("sex")) p.sex = after.sex === "male" || after.sex === "female" ? after.sex : null;
  if (changed("ageMin")) p.ageMin = age(after.ageMin);
  if (changed("ageMax")) p.ageMax = age(after.ageMax);
  if (changed("clothing")) p.clothing = orNull(after.clothing);
  if (changed("identificationStatus")) p.identificationStatus = IDENTIFICATION_STATUSES.find((s) => s === after.identificationStatus);
  if (changed("nameAr")) p.nameAr = orNull(after.nameAr);
  if (changed("nameLat")) p.nameLat = orNull(after.nameLat);
  if (changed("notes")) p.notes = orNull(after.notes);
  if (changed("sensitivity")) p.sensitivity = SENSITIVITIES.find((s) => s === after.sensitivity);
  return p;
}

export function BodyFields({ body, canEdit, onSaved }: { body: BodyDetail; canEdit: boolean; onSaved: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const hospitals = useTerms("hospital");
  const findings = useTerms("finding");
  const markTypes = useTerms("mark_type");
  const session = useSession();
  // set by a family caseworker's confirmed decision: it changes with that decision, not by an edit here
  const standing = body.identifications.find((i) => i.endedAt === null) ?? null;
  const [draft, setDraft] = useState<Draft | null>(null);
  const { busy, error, done, act } = useAct();

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const patch = patchOf(draftOf(body), draft);
    if (Object.keys(patch).length === 0) {
      setDraft(null);
      return;
    }
    if (await act(() => catalogue.editBody(body.id, { ...patch, version: body.version }), t("catalogue.fields.saved"))) {
      setDraft(null);
      await onSaved();
    }
  };

  const text = (k: keyof Draft, opts: { dir?: "ltr" | "auto"; area?: boolean; wide?: boolean; type?: string; hint?: string } = {}) => (
    <div className={`field${opts.wide ? " wide" : ""}`}>
      <label htmlFor={`body-${k}`}>{t(`catalogue.fields.${k}`)}</label>
      {opts.area ? (
        <textarea id={`body-${k}`} dir="auto" rows={3} value={draft![k]} onChange={(e) => setDraft({ ...draft!, [k]: e.target.value })} />
      ) : (
        <input
          id={`body-${k}`}
          type={opts.type ?? "text"}
          dir={opts.dir ?? "auto"}
          value={draft![k]}
          aria-describedby={opts.hint ? `body-${k}-hint` : undefined}
          onChange={(e) => setDraft({ ...draft!, [k]: e.target.value })}
        />
      )}
      {opts.hint && (
        <span id={`body-${k}-hint`} className="muted small">
          {opts.hint}
        </span>
      )}
    </div>
  );
  const choice = (k: keyof Draft, options: readonly string[], label: (v: string) => string, empty: boolean) => (
    <div className="field">
      <label htmlFor={`body-${k}`}>{t(`catalogue.fields.${k}`)}</label>
      <select id={`body-${k}`} value={draft![k]} onChange={(e) => setDraft({ ...draft!, [k]: e.target.value })}>
        {empty && <option value="">{t("catalogue.unknown")}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {label(o)}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <section className="card" aria-labelledby="fields-title">
      <div className="screen-head">
        <h2 id="fields-title">{t("catalogue.fields.title")}</h2>
        {canEdit && !draft && (
          <button type="button" data-testid="edit-body" onClick={() => setDraft(draftOf(body))}>
            {t("catalogue.fields.edit")}
          </button>
        )}
      </div>
      {done && <Notice kind="ok" title={done} />}
      <ErrorNote error={error} />
      {draft ? (
        <form onSubmit={(e) => void save(e)} data-testid="body-form">
          <div className="cat-form-grid">
            {text("nameAr")}
            {text("nameLat")}
            {text("externalRef", { dir: "ltr" })}
            {choice("hospital", hospitals.terms.map((h) => h.code), hospitals.label, true)}
            {text("photoDate", { dir: "ltr", type: "date" })}
            {text("deathDate", { hint: t("catalogue.fields.deathDateHint") })}
            {choice("sex", SEXES, (s) => t(`catalogue.sex.${s}`), true)}
            {text("ageMin", { type: "number", dir: "ltr" })}
            {text("ageMax", { type: "number", dir: "ltr" })}
            {standing ? (
              <div className="field">
                <span>{t("catalogue.fields.identificationStatus")}</span>
                <span className="muted small" data-testid="identification-locked">
                  {t("catalogue.identifiedThrough.locked", { report: standing.reportRef })}
                </span>
              </div>
            ) : (
              choice("identificationStatus", IDENTIFICATION_STATUSES, (s) => t(`catalogue.identification.${s}`), false)
            )}
            {choice("sensitivity", SENSITIVITIES, (s) => t(`catalogue.sensitivity.${s}`), false)}
            {text("clothing", { area: true, wide: true })}
            {text("notes", { area: true, wide: true })}
          </div>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {t("catalogue.fields.save")}
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      ) : (
        <dl className="pairs" data-testid="body-fields">
          <Pair term={t("catalogue.fields.nameAr")}>
            <span dir="auto">{body.nameAr ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.nameLat")}>
            <span dir="auto">{body.nameLat ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.identificationStatus")}>
            {t(`catalogue.identification.${body.identificationStatus}`)}
            {standing && (
              <span data-testid="identified-through">
                {" — "}
                {t("catalogue.identifiedThrough.report")}{" "}
                {session.can("disclosure.make") ? (
                  <Link to={`/families/reports/${encodeURIComponent(standing.reportRef)}`}>
                    <bdi>{standing.reportRef}</bdi>
                  </Link>
                ) : (
                  <bdi>{standing.reportRef}</bdi>
                )}{" "}
                {t("catalogue.identifiedThrough.since", { date: fmt.wallDate(standing.since.slice(0, 10)) })}
              </span>
            )}
          </Pair>
          <Pair term={t("catalogue.fields.externalRef")}>
            <span dir="ltr">{body.externalRef ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.hospital")}>{hospitals.label(body.hospital)}</Pair>
          <Pair term={t("catalogue.fields.photoDate")}>{body.photoDate ? fmt.wallDate(body.photoDate) : "—"}</Pair>
          <Pair term={t("catalogue.fields.deathDate")}>
            <span dir="auto">{body.deathDate?.text ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.sex")}>{body.sex ? t(`catalogue.sex.${body.sex}`) : "—"}</Pair>
          <Pair term={t("catalogue.fields.age")}>
            {body.ageMin === null && body.ageMax === null ? "—" : t("catalogue.fields.ageRange", { min: body.ageMin === null ? "?" : fmt.num(body.ageMin), max: body.ageMax === null ? "?" : fmt.num(body.ageMax) })}
          </Pair>
          <Pair term={t("catalogue.fields.marks")}>
            {body.marks.length === 0
              ? "—"
              : body.marks.map((m, i) => (
                  <span key={i} dir="auto">
                    {markTypes.label(m.type)}: {m.description}
                    {m.source === "review" && <span className="badge">{t("catalogue.fields.fromReview")}</span>}
                    {i < body.marks.length - 1 ? "; " : ""}
                  </span>
                ))}
          </Pair>
          <Pair term={t("catalogue.fields.injuries")}>{body.injuries.length ? body.injuries.map((c) => findings.label(c)).join("، ") : "—"}</Pair>
          <Pair term={t("catalogue.fields.reviewFindings")}>{body.reviewFindings.length ? body.reviewFindings.map((c) => findings.label(c)).join("، ") : "—"}</Pair>
          <Pair term={t("catalogue.fields.clothing")}>
            <span dir="auto">{body.clothing ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.notes")}>
            <span dir="auto">{body.notes ?? "—"}</span>
          </Pair>
          <Pair term={t("catalogue.fields.sensitivity")}>{t(`catalogue.sensitivity.${body.sensitivity}`)}</Pair>
          <Pair term={t("catalogue.body.created")}>
            {fmt.dateTime(body.createdAt)} · <Person id={body.createdBy} />
          </Pair>
        </dl>
      )}
    </section>
  );
}

/** Every change of the record, newest first: the field, old → new, who, when, and the custody event. */
export function BodyHistory({ entries, error }: { entries: HistoryEntry[] | null; error: unknown }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const hospitals = useTerms("hospital");
  const findings = useTerms("finding");
  // Codes in the reader's words; a list of photographs as its size (the hashes are in the custody log).
  const shown = (field: string, v: unknown): string => {
    if (v === null || v === undefined || v === "") return "—";
    const f = field.split(":")[0];
    if (f === "photos" && Array.isArray(v)) return t("catalogue.history.photoCount", { n: fmt.num(v.length), count: v.length });
    if (typeof v === "string") {
      if (f === "identificationStatus") return t(`catalogue.identification.${v}`);
      if (f === "sex") return t(`catalogue.sex.${v}`);
      if (f === "sensitivity") return t(`catalogue.sensitivity.${v}`);
      if (f === "reviewStatus") return t(`catalogue.review.${v}`);
      if (f === "hospital") return hospitals.label(v);
      if (f === "photoDate") return fmt.wallDate(v);
    }
    if ((f === "injuries" || f === "reviewFindings") && Array.isArray(v)) return v.length ? v.map((c) => findings.label(String(c))).join("، ") : "—";
    return valueText(v);
  };
  const rows = entries ? [...entries].sort((a, b) => b.eventSeq - a.eventSeq) : [];
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">{t("catalogue.history.title")}</h2>
      <p className="muted small">{t("catalogue.history.help")}</p>
      <ErrorNote error={error} />
      {entries && rows.length === 0 && <p className="muted">{t("catalogue.history.empty")}</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table compact" data-testid="body-history">
            <caption className="sr-only">{t("catalogue.history.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("catalogue.history.when")}</th>
                <th scope="col">{t("catalogue.history.who")}</th>
                <th scope="col">{t("catalogue.history.field")}</th>
                <th scope="col">{t("catalogue.history.change")}</th>
                <th scope="col">{t("catalogue.history.event")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((h, i) => (
                <tr key={`${h.eventSeq}-${h.recordId}-${h.field}-${i}`} data-field={h.field}>
                  <td>{fmt.dateTime(h.at)}</td>
                  <td>
                    <Person id={h.actor} />
                  </td>
                  <td>
                    {h.recordType === "body" ? "" : `${t(`catalogue.history.records.${h.recordType}`, { defaultValue: h.recordType })}: `}
                    {t(`catalogue.fields.${h.field.split(":")[0]}`, { defaultValue: h.field })}
                  </td>
                  <td data-old={valueText(h.old)} data-new={valueText(h.new)}>
                    <span className="cat-change">
                      <span className="sr-only">{t("catalogue.history.old")}</span>
                      <del dir="auto">{isPerson(h.old) ? <Person id={h.old} /> : shown(h.field, h.old)}</del>
                      <span aria-hidden="true">{lang === "ar" ? "←" : "→"}</span>
                      <span className="sr-only">{t("catalogue.history.new")}</span>
                      <ins dir="auto">{isPerson(h.new) ? <Person id={h.new} /> : shown(h.field, h.new)}</ins>
                    </span>
                  </td>
                  <td dir="ltr">#{fmt.num(h.eventSeq)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A value that names who did something (a number's checker): said as the person, not their account id. */
function isPerson(v: unknown): v is string {
  return typeof v === "string" && /^(usr_[a-z2-7]{26}|operator:.+|system:.+)$/.test(v);
}
