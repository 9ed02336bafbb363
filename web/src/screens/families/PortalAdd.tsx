import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { PortalReport, ProposalFields } from "../../api/types/families.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { portal } from "./api.ts";
import { TermField, useAct, useFormTerms } from "./shared.tsx";

/**
 * What a family adds or corrects (a mark remembered, a document found, a place, a mistake), sent to their
 * caseworker, who accepts or refuses it; and what they sent before, with what became of it and the caseworker's
 * reason in their own words.
 */
const KINDS = ["mark", "number", "seen", "correction"] as const;
type Kind = (typeof KINDS)[number];
const CORRECTABLE = ["birthDate", "arrestDate", "arrestPlace", "branch", "motherName", "birthPlace", "reporterContact"] as const;
type Correctable = (typeof CORRECTABLE)[number];
const NUMBER_ROLES = ["detainee", "branch", "examiner"] as const;

export function PortalAdd({ report, onChange }: { report: PortalReport["report"]; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const markTypes = useFormTerms("mark_type", true);
  const regions = useFormTerms("body_region", true);
  const [kind, setKind] = useState<Kind>("mark");
  const [mark, setMark] = useState({ type: "", region: "", description: "" });
  const [number, setNumber] = useState<{ role: (typeof NUMBER_ROLES)[number]; value: string }>({ role: "detainee", value: "" });
  const [seen, setSeen] = useState({ place: "", when: "", witness: "" });
  const [field, setField] = useState<Correctable>("birthDate");
  const [value, setValue] = useState("");
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useAct(onChange);
  const id = "portal-add";

  const fields = (): ProposalFields | null => {
    if (kind === "mark") return mark.type && mark.description.trim() ? { marks: [...report.marks, { type: mark.type, region: mark.region || null, description: mark.description.trim() }] } : null;
    if (kind === "number") return number.value.trim() ? { numbers: [...report.numbers, { role: number.role, value: number.value.trim() }] } as ProposalFields : null;
    if (kind === "seen") {
      if (!seen.place.trim()) return null;
      const s = { place: seen.place.trim(), ...(seen.when.trim() ? { when: seen.when.trim() } : {}), ...(seen.witness.trim() ? { witness: seen.witness.trim() } : {}) };
      return { seenInDetention: [...report.seenInDetention, s] } as ProposalFields;
    }
    return value.trim() ? ({ [field]: value.trim() } as ProposalFields) : null;
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const f = fields();
    if (!f) return;
    void run(async () => {
      await portal.propose(report.id, f);
      setSent(true);
      setMark({ type: "", region: "", description: "" });
      setNumber({ role: "detainee", value: "" });
      setSeen({ place: "", when: "", witness: "" });
      setValue("");
    });
  };
  const text = (key: string, label: string, v: string, set: (s: string) => void, dir: "auto" | "ltr" = "auto") => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input id={`${id}-${key}`} dir={dir} value={v} onChange={(e) => (setSent(false), set(e.target.value))} />
    </div>
  );
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t("families.portal.addTitle")}</h2>
      <p className="small">{t("families.portal.addHelp")}</p>
      <form onSubmit={submit} data-testid="portal-add">
        <fieldset disabled={busy}>
          <legend>{t("families.portal.addWhat")}</legend>
          {KINDS.map((k) => (
            <div className="fam-check" key={k}>
              <input type="radio" id={`${id}-kind-${k}`} name={`${id}-kind`} value={k} checked={kind === k} onChange={() => (setSent(false), setKind(k))} />
              <label htmlFor={`${id}-kind-${k}`}>{t(`families.portal.addKinds.${k}`)}</label>
            </div>
          ))}
          {kind === "mark" && (
            <>
              <TermField id={`${id}-mark-type`} label={t("families.portalForm.form.markType")} value={mark.type} onChange={(v) => setMark({ ...mark, type: v })} vocabulary={markTypes} />
              <TermField id={`${id}-mark-region`} label={t("families.portalForm.form.markRegion")} value={mark.region} onChange={(v) => setMark({ ...mark, region: v })} vocabulary={regions} />
              {text("mark-desc", t("families.portalForm.form.markDescription"), mark.description, (s) => setMark({ ...mark, description: s }))}
            </>
          )}
          {kind === "number" && (
            <>
              <div className="field">
                <label htmlFor={`${id}-number-role`}>{t("families.portal.numberRole")}</label>
                <select id={`${id}-number-role`} value={number.role} onChange={(e) => setNumber({ ...number, role: e.target.value as (typeof NUMBER_ROLES)[number] })}>
                  {NUMBER_ROLES.map((r) => (
                    <option key={r} value={r}>
                      {t(`families.portal.numberRoles.${r}`)}
                    </option>
                  ))}
                </select>
              </div>
              {text("number-value", t("families.portal.numberValue"), number.value, (s) => setNumber({ ...number, value: s }), "ltr")}
            </>
          )}
          {kind === "seen" && (
            <>
              {text("seen-place", t("families.portal.seenPlace"), seen.place, (s) => setSeen({ ...seen, place: s }))}
              {text("seen-when", t("families.portal.seenWhen"), seen.when, (s) => setSeen({ ...seen, when: s }), "ltr")}
              {text("seen-witness", t("families.portal.seenWitness"), seen.witness, (s) => setSeen({ ...seen, witness: s }))}
            </>
          )}
          {kind === "correction" && (
            <>
              <div className="field">
                <label htmlFor={`${id}-field`}>{t("families.portal.correctField")}</label>
                <select id={`${id}-field`} value={field} onChange={(e) => setField(e.target.value as Correctable)}>
                  {CORRECTABLE.map((f) => (
                    <option key={f} value={f}>
                      {t(`families.portal.fieldNames.${f}`)}
                    </option>
                  ))}
                </select>
              </div>
              {text("value", t("families.portal.correctValue"), value, setValue)}
            </>
          )}
          <ErrorNote error={error} />
          {sent && (
            <p role="status" className="small">
              {t("families.portal.sentStatus.proposed")}
            </p>
          )}
          <button type="submit" disabled={!fields()}>
            {t("families.portal.addSend")}
          </button>
        </fieldset>
      </form>
    </section>
  );
}

/** What the family sent, newest first: waiting, added, or not added with the caseworker's reason. */
export function PortalSent({ list }: { list: PortalReport["proposals"] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (list.length === 0) return null;
  return (
    <section className="card" aria-labelledby="portal-sent-title">
      <h2 id="portal-sent-title">{t("families.portal.sentTitle")}</h2>
      <ul className="fam-plain" data-testid="portal-sent">
        {list.map((p) => (
          <li key={p.id} className="fam-message" data-status={p.status}>
            <p>
              {p.kind === "new" ? t("families.portal.sentNew") : t("families.portal.sentChange", { fields: p.fields.map((f) => t(`families.portal.fieldNames.${f}`, { defaultValue: f })).join("، ") })}
              {" · "}
              <span className="muted small">{fmt.dateTime(p.createdAt)}</span>
            </p>
            <p>
              <strong>{t(`families.portal.sentStatus.${p.status}`)}</strong>
            </p>
            {p.reason && (
              <p className="small">
                {t("families.portal.sentReason")} <q dir="auto">{p.reason}</q>
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
