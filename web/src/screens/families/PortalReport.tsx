import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { CONSENT_TIERS, type ConsentTier, type PortalMatch, type PortalReport, type PortalWithdrawal } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { portal } from "./api.ts";
import { useAct, useReportName } from "./shared.tsx";
import { PortalAdd, PortalSent } from "./PortalAdd.tsx";
import "./families.css";

/**
 * One of a family's reports, as they may see it: what they told us, what a caseworker has shared with them (the
 * words first; an image only later, blurred, and only with their consent), their consent, which they may
 * withdraw at any time, and a way to ask to see more. No ranking, no list of possible matches, nothing unshared.
 */
export function PortalReportPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const name = useReportName();
  const id = params.id!;
  const rep = useAsync(() => portal.report(id), [id]);
  if (!rep.data)
    return (
      <section aria-labelledby="portal-report-title" className="fam-portal">
        <h1 id="portal-report-title">{t("families.portal.reportTitle")}</h1>
        <ErrorNote error={rep.error} />
        {rep.loading && <p className="muted">{t("app.loading")}</p>}
      </section>
    );
  const p: PortalReport = rep.data;
  return (
    <section aria-labelledby="portal-report-title" className="fam-portal" data-testid="portal-report">
      <div className="screen-head">
        <h1 id="portal-report-title" dir="auto">
          {name(p.report)}
        </h1>
        <Link to="/portal">{t("families.portal.back")}</Link>
      </div>
      <p className="muted small">
        {t("families.portal.refLabel")} <span dir="ltr">{p.report.ref}</span>
      </p>
      {p.report.status === "submitted" && (
        <Notice kind="info">
          <p data-testid="portal-submitted">{t("families.portal.submitted")}</p>
        </Notice>
      )}
      {p.mergedInto && (
        <Notice kind="info">
          <p>{t("families.portal.mergedHelp")}</p>
          <p>
            <Link to={`/portal/reports/${p.mergedInto}`}>{t("families.portal.openMerged")}</Link>
          </p>
        </Notice>
      )}
      <section className="card" aria-labelledby="portal-news-title">
        <h2 id="portal-news-title">{t("families.portal.newsTitle")}</h2>
        {p.matches.length === 0 ? (
          <p data-testid="portal-nothing-yet">{t(p.withdrawn.length ? "families.portal.nothingStands" : "families.portal.nothingYet")}</p>
        ) : (
          p.matches.map((m) => <Match key={m.matchId} reportId={p.report.id} m={m} onChange={rep.reload} />)
        )}
        <Withdrawn list={p.withdrawn} />
        <p className="muted small">{t("families.portal.support")}</p>
      </section>
      {p.report.status !== "closed" && !p.mergedInto && <PortalAdd report={p.report} onChange={rep.reload} />}
      <PortalSent list={p.proposals} />
      <PortalConsent report={p.report} onChange={rep.reload} />
    </section>
  );
}

/** What a caseworker shared and took back: what kind of thing, when, and why, in the family's words; not the thing. */
function Withdrawn({ list }: { list: PortalWithdrawal[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (list.length === 0) return null;
  return (
    <div className="fam-withdrawn" data-testid="portal-withdrawn">
      <h3>{t("families.portal.withdrawnTitle")}</h3>
      <ul className="fam-plain">
        {list.map((w, i) => (
          <li key={i} className="fam-message">
            <p>
              {t(`families.portal.withdrawnWhat.${w.stage}`, { shared: fmt.dateTime(w.sharedAt), withdrawn: fmt.dateTime(w.withdrawnAt) })}
            </p>
            <p>{t(`families.portal.withdrawnWhy.${w.reason}`, { defaultValue: t("families.portal.withdrawnWhy.other") })}</p>
            {w.note && (
              <blockquote dir="auto" className="small">
                {w.note}
              </blockquote>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Match({ reportId, m, onChange }: { reportId: string; m: PortalMatch; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <article className="fam-match" data-testid="portal-match" data-stage={m.stage}>
      <p>
        <strong>{t(`families.portal.statuses.${m.status}`)}</strong>
      </p>
      <ol className="fam-plain">
        {m.messages.map((msg, i) => (
          <li key={i} className="fam-message" data-testid="portal-message">
            <p className="muted small">{fmt.dateTime(msg.at)}</p>
            <p dir="auto">{msg.text}</p>
          </li>
        ))}
      </ol>
      {m.images.length > 0 && (
        <div className="fam-images">
          <p className="small">{t("families.portal.imageNote")}</p>
          {m.images.map((img) => (
            <figure key={img.id}>
              <img src={portal.imageUrl(img.id)} alt={t(img.blurred ? "families.portal.imageAltBlurred" : "families.portal.imageAlt")} className="fam-disclosed-image" />
              <figcaption className="muted small">{fmt.dateTime(img.at)}</figcaption>
            </figure>
          ))}
        </div>
      )}
      {m.requests.length > 0 && (
        <ul className="fam-plain small">
          {m.requests.map((r) => (
            <li key={r.id}>
              {t(`families.portal.requestStatus.${r.status}`, { when: fmt.dateTime(r.createdAt) })}
            </li>
          ))}
        </ul>
      )}
      {m.mayRequestMore && <RequestMore reportId={reportId} matchId={m.matchId} onChange={onChange} />}
    </article>
  );
}

function RequestMore({ reportId, matchId, onChange }: { reportId: string; matchId: string; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const [unblurred, setUnblurred] = useState(false);
  const [note, setNote] = useState("");
  const { busy, error, run } = useAct(onChange);
  const id = `more-${matchId}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => portal.requestMore(reportId, matchId, unblurred, note.trim() || undefined));
  };
  return (
    <form className="fam-request-more" onSubmit={submit} data-testid="request-more">
      <fieldset disabled={busy}>
        <legend>{t("families.portal.moreTitle")}</legend>
        <p className="small">{t("families.portal.moreHelp")}</p>
        <div className="fam-check">
          <input type="radio" id={`${id}-blurred`} name={`${id}-kind`} checked={!unblurred} onChange={() => setUnblurred(false)} />
          <label htmlFor={`${id}-blurred`}>{t("families.portal.moreBlurred")}</label>
        </div>
        <div className="fam-check">
          <input type="radio" id={`${id}-clear`} name={`${id}-kind`} checked={unblurred} onChange={() => setUnblurred(true)} />
          <label htmlFor={`${id}-clear`}>{t("families.portal.moreUnblurred")}</label>
        </div>
        {unblurred && <p className="small">{t("families.portal.moreUnblurredWarning")}</p>}
        <div className="field">
          <label htmlFor={`${id}-note`}>{t("families.portal.moreNote")}</label>
          <textarea id={`${id}-note`} dir="auto" rows={3} value={note} onChange={(e) => setNote(e.target.value)} />
        </div>
        <ErrorNote error={error} />
        <button type="submit">{t("families.portal.moreSend")}</button>
      </fieldset>
    </form>
  );
}

/** The family's consent, tier by tier, each one theirs to give or to withdraw; a change takes effect at once. */
function PortalConsent({ report, onChange }: { report: PortalReport["report"]; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const { busy, error, run } = useAct(onChange);
  const flip = (tier: ConsentTier, given: boolean) => void run(() => portal.consent(report.id, tier, given));
  return (
    <section className="card" aria-labelledby="portal-consent-title">
      <h2 id="portal-consent-title">{t("families.consent.title")}</h2>
      <p className="small">{t("families.consent.familyHelp")}</p>
      <ul className="fam-plain" data-testid="portal-consent">
        {CONSENT_TIERS.map((tier) => {
          const given = report.consent[tier]?.given ?? false;
          return (
            <li key={tier} className="fam-check">
              <input type="checkbox" role="switch" id={`consent-${tier}`} checked={given} disabled={busy} aria-describedby={`consent-${tier}-help`} onChange={(e) => flip(tier, e.target.checked)} />
              <label htmlFor={`consent-${tier}`}>{t(`families.consent.tiers.${tier}`)}</label>
              <span id={`consent-${tier}-help`} className="muted small fam-consent-help">
                {t(`families.consent.explain.${tier}`)}
              </span>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={error} />
    </section>
  );
}
