import { useState } from "react";
import { useTranslation } from "react-i18next";
import { RESOLUTION_METHODS, type CauseIndicator, type Dispute, type ResolutionMethod, type ReviewView, type Term } from "../../api/types/review.ts";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Hash } from "../../components/Hash.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { reviewApi } from "./api.ts";
import { RecordedMarks } from "./MarksEditor.tsx";
import { termLabel } from "./draft.ts";
import { Person } from "../../components/Person.tsx";

/**
 * Double reviews that disagree: the two blind reviews side by side (they open to everyone entitled once both
 * are in), what they differ on marked, and the resolution — a third reviewer's or the pair's consensus —
 * with the findings that stand and a note. The resolution is signed and logged like a review.
 */
export function Disagreements(_props: ScreenProps) {
  const { t } = useTranslation();
  const list = useAsync(() => Promise.all([reviewApi.disagreements(), reviewApi.findings()]), []);
  const [done, setDone] = useState<string | null>(null);
  const [disputes, terms] = list.data ?? [null, null];
  return (
    <section aria-labelledby="disagreements-title">
      <div className="screen-head">
        <h1 id="disagreements-title">{t("review.disagreementsTitle")}</h1>
      </div>
      <p className="muted">{t("review.disagreementsIntro")}</p>
      <ErrorNote error={list.error} />
      {done && (
        <Notice kind="ok" title={t("review.resolvedTitle")}>
          <Hash value={done} />
        </Notice>
      )}
      {disputes && disputes.length === 0 && <p className="muted">{t("review.noDisagreements")}</p>}
      {disputes?.map((d) => (
        <DisputeCard
          key={d.itemId}
          d={d}
          terms={terms}
          onResolved={async (sha) => {
            setDone(sha);
            await list.reload();
          }}
        />
      ))}
    </section>
  );
}

function latestPair(reviews: ReviewView[], d: Dispute): ReviewView[] {
  const byAssignment = new Map<string, ReviewView>();
  for (const r of reviews) if (r.content.item === d.itemId) byAssignment.set(r.content.assignment, r);
  return [...byAssignment.values()].sort((a, b) => d.reviewers.indexOf(a.content.reviewer) - d.reviewers.indexOf(b.content.reviewer)).slice(0, 2);
}

function DisputeCard({ d, terms, onResolved }: { d: Dispute; terms: Term[] | null; onResolved: (sha: string) => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const reviews = useAsync(async () => latestPair((await reviewApi.ofBody(d.bodyId)).reviews, d), [d.itemId]);
  const pair = reviews.data ?? [];
  const allCodes = [...new Set(pair.flatMap((r) => r.content.findings.map((f) => f.code)))].sort();
  const allCauses = [...new Set(pair.flatMap((r) => r.content.causes.map((c) => c.code)))].sort();
  const [method, setMethod] = useState<ResolutionMethod>("third_reviewer");
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [causes, setCauses] = useState<Set<CauseIndicator> | null>(null);
  // marks by type and place: those both reviewers recorded stand until the resolver chooses
  const markKey = (m: { type: string; region: string | null }) => `${m.type}|${m.region ?? ""}`;
  const allMarks = [...new Map(pair.flatMap((r) => r.content.marks ?? []).map((m) => [markKey(m), m])).values()];
  const bothMarks = new Set(allMarks.map(markKey).filter((k) => pair.length === 2 && pair.every((r) => (r.content.marks ?? []).some((m) => markKey(m) === k))));
  const [marks, setMarks] = useState<Set<string> | null>(null);
  const markSet = marks ?? bothMarks;
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Until the resolver chooses, what both reviewers recorded stands.
  const agreed = new Set(allCodes.filter((c) => !d.disagreement.codes.includes(c)));
  const findings = chosen ?? agreed;
  const agreedCauses = new Set(allCauses.filter((c) => !d.disagreement.causes.includes(c)));
  const causeSet = causes ?? agreedCauses;
  const toggle = <T,>(s: Set<T>, v: T, on: boolean) => {
    const n = new Set(s);
    if (on) n.add(v);
    else n.delete(v);
    return n;
  };
  const titleId = `dispute-${d.itemId}`;
  return (
    <article className="card dispute" aria-labelledby={titleId} data-testid="dispute">
      <h2 id={titleId}>{t("review.disputeTitle", { body: d.bodyRef })}</h2>
      <p>
        {t("review.differOn")}{" "}
        {[...d.disagreement.codes.map((c) => termLabel(terms, c, lang)), ...d.disagreement.causes.map((c) => t(`review.causeCodes.${c}`, { defaultValue: c }))].join(t("review.sep"))}
      </p>
      <ErrorNote error={reviews.error} />
      <div className="side-by-side">
        {pair.map((r, i) => (
          <section key={r.id} className="card" aria-labelledby={`${titleId}-${i}`}>
            <h3 id={`${titleId}-${i}`}>{t("review.reviewerN", { n: fmt.num(i + 1) })}</h3>
            <p className="small muted">
              <Person id={r.content.reviewer} />{t("review.sep")}{fmt.dateTime(r.content.submittedAt)}{t("review.sep")}{t("review.versionN", { n: fmt.num(r.content.version) })}
            </p>
            <ul className="plain">
              {r.content.findings.map((f) => (
                <li key={f.code} className={d.disagreement.codes.includes(f.code) ? "differs" : ""}>
                  {termLabel(terms, f.code, lang)}{t("review.sep")}{t(`review.confidences.${f.confidence}`)}{t("review.sep")}{t("review.regionsOf", { n: fmt.num(f.regions?.length ?? 0) })}
                  {d.disagreement.codes.includes(f.code) && <span className="badge badge-warn">{t("review.onlyHere")}</span>}
                  {f.note && <p dir="auto">{f.note}</p>}
                </li>
              ))}
            </ul>
            {r.content.causes.length > 0 && (
              <p>
                {t("review.causes")}: {r.content.causes.map((c) => t(`review.causeCodes.${c.code}`)).join(t("review.sep"))}
              </p>
            )}
            <RecordedMarks marks={r.content.marks ?? []} clothing={r.content.clothing} />
            {r.content.notes && <p dir="auto">{r.content.notes}</p>}
          </section>
        ))}
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          reviewApi
            .resolve(d.itemId, { method, findings: [...findings], causes: [...causeSet], ...(allMarks.length ? { marks: allMarks.filter((m) => markSet.has(markKey(m))) } : {}), note: note.trim() })
            .then((r) => onResolved(r.sha256))
            .catch(setError)
            .finally(() => setBusy(false));
        }}
      >
        <fieldset>
          <legend>{t("review.method")}</legend>
          {RESOLUTION_METHODS.map((m) => (
            <label key={m} className="tool">
              <input type="radio" name={`method-${d.itemId}`} checked={method === m} onChange={() => setMethod(m)} />
              {t(`review.methods.${m}`)}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>{t("review.standingFindings")}</legend>
          {allCodes.map((c) => (
            <label key={c} className="tool">
              <input type="checkbox" checked={findings.has(c)} onChange={(e) => setChosen(toggle(findings, c, e.target.checked))} />
              {termLabel(terms, c, lang)}
            </label>
          ))}
        </fieldset>
        {allCauses.length > 0 && (
          <fieldset>
            <legend>{t("review.standingCauses")}</legend>
            {allCauses.map((c) => (
              <label key={c} className="tool">
                <input type="checkbox" checked={causeSet.has(c)} onChange={(e) => setCauses(toggle(causeSet, c, e.target.checked))} />
                {t(`review.causeCodes.${c}`, { defaultValue: c })}
              </label>
            ))}
          </fieldset>
        )}
        {allMarks.length > 0 && (
          <fieldset>
            <legend>{t("review.standingMarks")}</legend>
            {allMarks.map((m) => (
              <label key={markKey(m)} className="tool">
                <input type="checkbox" checked={markSet.has(markKey(m))} onChange={(e) => setMarks(toggle(markSet, markKey(m), e.target.checked))} />
                <RecordedMarks marks={[m]} clothing={undefined} bare />
              </label>
            ))}
          </fieldset>
        )}
        <div className="field">
          <label htmlFor={`note-${d.itemId}`}>{t("review.resolutionNote")}</label>
          <textarea id={`note-${d.itemId}`} rows={2} required maxLength={4000} dir="auto" value={note} onChange={(e) => setNote(e.target.value)} />
        </div>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy || findings.size === 0 || !note.trim()}>
          {t("review.resolve")}
        </button>
      </form>
    </article>
  );
}
