import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { DECISION_STATUSES, type CandidateView, type CaseView, type DecisionStatus } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { BandBadge, useAct } from "./shared.tsx";
import { DiscloseForm } from "./DiscloseForm.tsx";
import { EvidenceText } from "./evidence.tsx";

/** The ranked candidates: the score and its band, the evidence in words, the decision and the disclosure. */
export function Candidates({ kase, candidates, onChange }: { kase: CaseView; candidates: CandidateView[] | null; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="fam-cands-title">
      <h2 id="fam-cands-title">{t("families.candidates.title")}</h2>
      <p className="muted small">{t("families.candidates.intro")}</p>
      {candidates === null && <p className="muted">{t("app.loading")}</p>}
      {candidates?.length === 0 && <p>{t("families.candidates.none")}</p>}
      <ol className="fam-candidates" data-testid="candidates">
        {candidates?.map((c) => (
          <Candidate key={c.bodyId} kase={kase} c={c} onChange={onChange} />
        ))}
      </ol>
    </section>
  );
}

function Candidate({ kase, c, onChange }: { kase: CaseView; c: CandidateView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const decision = kase.decisions.find((d) => d.bodyId === c.bodyId) ?? null;
  const told = kase.disclosures.filter((d) => d.bodyId === c.bodyId);
  const head = `fam-cand-${c.bodyId}`;
  return (
    <li>
      <article className="fam-candidate" data-body-id={c.bodyId} data-band={c.band} aria-labelledby={head}>
        <h3 id={head}>
          {t("families.candidates.rank", { n: fmt.num(c.rank) })} ·{" "}
          <Link to={`/bodies/${c.bodyId}`}>
            <span dir="ltr">{c.ref}</span>
          </Link>
          {c.externalRef && (
            <span className="muted small" data-testid="external-ref">
              {" "}
              ({t("families.candidates.externalRef")} <bdi dir="ltr">{c.externalRef}</bdi>)
            </span>
          )}
        </h3>
        <p className="fam-score">
          <span>{t("families.candidates.score", { score: fmt.num(Math.round(c.score * 10) / 10) })}</span> <BandBadge band={c.band} />
        </p>
        <ul className="fam-evidence" data-testid="evidence" aria-label={t("families.candidates.evidence")}>
          {c.evidence.map((e, i) => (
            <li key={i} data-feature={e.feature}>
              <span className="fam-feature">{t(`families.features.${e.feature}`)}</span>{" "}
              <EvidenceText e={e} />{" "}
              <span className={e.points >= 0 ? "fam-points-for" : "fam-points-against"} dir="ltr">
                {e.points >= 0 ? "+" : ""}
                {fmt.num(Math.round(e.points * 10) / 10)}
              </span>
            </li>
          ))}
        </ul>
        {decision && (
          <p data-testid="decision" data-status={decision.status}>
            <strong>{t("families.decision.current")}</strong> {t(`families.decision.statuses.${decision.status}`)} —{" "}
            <span dir="auto">{decision.reason}</span> <span className="muted small">({fmt.dateTime(decision.createdAt)})</span>
          </p>
        )}
        <DecideForm reportId={kase.report.id} bodyId={c.bodyId} current={decision?.status ?? null} onDone={onChange} />
        {decision && <DiscloseForm kase={kase} bodyId={c.bodyId} decision={decision.status} told={told} onDone={onChange} />}
      </article>
    </li>
  );
}

function DecideForm({ reportId, bodyId, current, onDone }: { reportId: string; bodyId: string; current: DecisionStatus | null; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<DecisionStatus>(current ?? "presumptive");
  const [reason, setReason] = useState("");
  const { busy, error, run } = useAct(onDone);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => families.decide(reportId, bodyId, status, reason.trim())).then((ok) => ok && setReason(""));
  };
  return (
    <form className="fam-decide" onSubmit={submit} data-testid="decide-form">
      <fieldset>
        <legend>{t(current ? "families.decision.change" : "families.decision.record")}</legend>
        <div className="field">
          <label htmlFor={`decide-status-${bodyId}`}>{t("families.decision.status")}</label>
          <select id={`decide-status-${bodyId}`} value={status} onChange={(e) => setStatus(e.target.value as DecisionStatus)}>
            {DECISION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`families.decision.statuses.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`decide-reason-${bodyId}`}>{t("families.decision.reason")}</label>
          <textarea id={`decide-reason-${bodyId}`} dir="auto" rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
        </div>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy || !reason.trim()}>
          {t("families.decision.save")}
        </button>
      </fieldset>
    </form>
  );
}
