import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { WITHDRAWAL_REASONS, type CaseView, type DisclosureView, type WithdrawalReason } from "../../api/types/families.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";

/**
 * What has been disclosed, stage by stage: the words, and the image exactly as the family was shown it. A
 * disclosure still shown can be withdrawn with a reason the family reads in their language (and a note, as
 * written); the later stages of the same match go with it. Withdrawn ones stay listed, marked, with why.
 */
export function Disclosures({ kase, onChange }: { kase: CaseView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (kase.disclosures.length === 0) return null;
  return (
    <section className="card" aria-labelledby="fam-disclosed-title">
      <h2 id="fam-disclosed-title">{t("families.disclosed.title")}</h2>
      <ol className="fam-plain" data-testid="disclosures">
        {kase.disclosures.map((d) => (
          <li key={d.id} className="fam-disclosure" data-stage={d.stage} data-withdrawn={d.withdrawn ? "true" : "false"}>
            <p>
              <strong>{t(`families.stages.${d.stage}`)}</strong> · {t(`families.decision.statuses.${d.status}`)} · <span className="muted small">{fmt.dateTime(d.createdAt)}</span>
            </p>
            <div className="fam-message">
              <p dir="auto">{d.text}</p>
              {d.photo && <img src={families.disclosureImageUrl(d.id)} alt={t("families.disclosed.imageAlt")} className="fam-disclosed-image" loading="lazy" />}
            </div>
            {d.withdrawn ? (
              <p className="small" data-testid="withdrawn-note">
                <span className="badge">{t("families.withdraw.withdrawn", { when: fmt.dateTime(d.withdrawn.at) })}</span> {t(`families.withdraw.reasons.${d.withdrawn.reason}`)}
                {d.withdrawn.note && (
                  <>
                    {" — "}
                    <span dir="auto">{d.withdrawn.note}</span>
                  </>
                )}
              </p>
            ) : (
              <WithdrawForm d={d} onChange={onChange} />
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function WithdrawForm({ d, onChange }: { d: DisclosureView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<WithdrawalReason>("sentInError");
  const [note, setNote] = useState("");
  const act = useAct(onChange);
  const id = `withdraw-${d.id}`;
  if (!open)
    return (
      <button type="button" className="link-button" data-testid="withdraw-open" onClick={() => setOpen(true)}>
        {t("families.withdraw.open")}
      </button>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(() => families.withdraw(d.id, reason, note.trim() || undefined));
  };
  return (
    <form className="inline-form" onSubmit={submit} data-testid="withdraw-form">
      <p className="small">{t("families.withdraw.help")}</p>
      <div className="field">
        <label htmlFor={`${id}-reason`}>{t("families.withdraw.reason")}</label>
        <select id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value as WithdrawalReason)}>
          {WITHDRAWAL_REASONS.map((r) => (
            <option key={r} value={r}>
              {t(`families.withdraw.reasons.${r}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-note`}>{t(reason === "other" ? "families.withdraw.noteRequired" : "families.withdraw.note")}</label>
        <textarea id={`${id}-note`} dir="auto" rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
      </div>
      <button type="submit" disabled={act.busy || (reason === "other" && !note.trim())}>
        {t("families.withdraw.submit")}
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        {t("common.cancel")}
      </button>
      <ErrorNote error={act.error} />
    </form>
  );
}
