import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Person } from "../../components/Person.tsx";
import { CONSENT_TIERS, type CaseView, type ConsentTier, type RequestView } from "../../api/types/families.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";

/** The consent tiers as the family gave them, and a change recorded with how the family said so. */
export function CaseConsent({ kase, onChange }: { kase: CaseView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [note, setNote] = useState("");
  const act = useAct(onChange);
  const c = kase.report.consent;
  const flip = (tier: ConsentTier) => void act.run(() => families.consent(kase.report.id, tier, !(c[tier]?.given ?? false), note.trim() || undefined)).then((ok) => ok && setNote(""));
  return (
    <section className="card" aria-labelledby="fam-consent-title">
      <h2 id="fam-consent-title">{t("families.consent.title")}</h2>
      <p className="muted small">{t("families.consent.caseworkerHelp")}</p>
      <div className="field">
        <label htmlFor="consent-note">{t("families.consent.note")}</label>
        <input id="consent-note" dir="auto" value={note} onChange={(e) => setNote(e.target.value)} />
      </div>
      <ul className="fam-plain" data-testid="consent">
        {CONSENT_TIERS.map((tier) => {
          const given = c[tier]?.given ?? false;
          return (
            <li key={tier} data-tier={tier} data-given={given}>
              <span className={given ? "badge badge-ok" : "badge"}>{t(given ? "families.consent.given" : "families.consent.notGiven")}</span> {t(`families.consent.tiers.${tier}`)}
              {c[tier] && <span className="muted small"> ({fmt.dateTime(c[tier].at)})</span>}{" "}
              <button type="button" className="link-button" disabled={act.busy} onClick={() => flip(tier)}>
                {t(given ? "families.consent.withdraw" : "families.consent.record")}
              </button>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={act.error} />
    </section>
  );
}

/** The family members' accounts tied to the report (who may read it in the portal), and a new tie. */
export function CaseMembers({ kase, onChange }: { kase: CaseView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const [userId, setUserId] = useState("");
  const [relationship, setRelationship] = useState("");
  const act = useAct(onChange);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(() => families.linkMember(kase.report.id, userId.trim(), relationship.trim() || undefined)).then((ok) => ok && setUserId(""));
  };
  return (
    <section className="card" aria-labelledby="fam-members-title">
      <h2 id="fam-members-title">{t("families.members.title")}</h2>
      {kase.members.length === 0 ? (
        <p>{t("families.members.none")}</p>
      ) : (
        <ul className="fam-plain" data-testid="members">
          {kase.members.map((m) => (
            <li key={m}>
              <Person id={m} />
            </li>
          ))}
        </ul>
      )}
      <form className="inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="member-id">{t("families.members.userId")}</label>
          <input id="member-id" type="email" dir="ltr" required value={userId} onChange={(e) => setUserId(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="member-rel">{t("families.members.relationship")}</label>
          <input id="member-rel" dir="auto" value={relationship} onChange={(e) => setRelationship(e.target.value)} />
        </div>
        <button type="submit" disabled={act.busy || !userId.trim()}>
          {t("families.members.link")}
        </button>
      </form>
      <ErrorNote error={act.error} />
    </section>
  );
}

/** A family's requests to see more: approve (the photos are shown blurred unless they asked otherwise) or decline. */
export function CaseRequests({ kase, onChange }: { kase: CaseView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  if (kase.requests.length === 0) return null;
  return (
    <section className="card" aria-labelledby="fam-requests-title">
      <h2 id="fam-requests-title">{t("families.requests.title")}</h2>
      <ul className="fam-plain" data-testid="requests">
        {kase.requests.map((r) => (
          <RequestItem key={r.id} r={r} onChange={onChange} />
        ))}
      </ul>
    </section>
  );
}

function RequestItem({ r, onChange }: { r: RequestView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [reason, setReason] = useState("");
  const act = useAct(onChange);
  const id = `req-${r.id}`;
  return (
    <li className="fam-request" data-status={r.status}>
      <p>
        <strong>{t(r.unblurred ? "families.requests.unblurred" : "families.requests.blurred")}</strong> · {t(`families.requests.statuses.${r.status}`)} ·{" "}
        <span className="muted small">{fmt.dateTime(r.createdAt)}</span>
      </p>
      {r.note && <blockquote dir="auto">{r.note}</blockquote>}
      {r.reason && (
        <p className="muted small">
          {t("families.requests.answer")} <span dir="auto">{r.reason}</span>
        </p>
      )}
      {r.status === "requested" && (
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`${id}-reason`}>{t("families.requests.reason")}</label>
            <input id={`${id}-reason`} dir="auto" value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="button" disabled={act.busy || !reason.trim()} onClick={() => void act.run(() => families.approve(r.id, reason.trim()))}>
            {t("families.requests.approve")}
          </button>
          <button type="button" disabled={act.busy || !reason.trim()} onClick={() => void act.run(() => families.decline(r.id, reason.trim()))}>
            {t("families.requests.decline")}
          </button>
        </div>
      )}
      <ErrorNote error={act.error} />
    </li>
  );
}
