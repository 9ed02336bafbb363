import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { REFERRAL_RESULTS, REFERRAL_STATUSES, type CaseView, type ReferralInput, type ReferralResult, type ReferralStatus, type ReferralView } from "../../api/types/families.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Pair } from "../../components/Pair.tsx";
import { Person } from "../../components/Person.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";

/**
 * The report's DNA / ante-mortem referrals (caseworkers only): each as it stands, with its earlier versions, and a
 * form to record one or change it. A referral needs the family's dnaReferral consent; a result moves the ranking.
 */
export function Referrals({ kase, onChange }: { kase: CaseView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const id = kase.report.id;
  const list = useAsync(() => families.referrals(id), [id]);
  const [adding, setAdding] = useState(false);
  const consented = kase.report.consent.dnaReferral?.given === true;
  const changed = async () => {
    await Promise.all([list.reload(), onChange()]);
  };
  return (
    <section className="card" aria-labelledby="fam-referrals-title" data-testid="referrals">
      <h2 id="fam-referrals-title">{t("families.referrals.title")}</h2>
      <p className="muted small">{t("families.referrals.intro")}</p>
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p>{t("families.referrals.none")}</p>}
      <ul className="fam-plain">
        {list.data?.map((r) => (
          <Referral key={r.id} r={r} consented={consented} onChange={changed} />
        ))}
      </ul>
      {!consented && <p className="muted small">{t("families.referrals.noConsent")}</p>}
      {consented &&
        (adding ? (
          <ReferralForm reportId={id} onDone={() => setAdding(false)} onChange={changed} />
        ) : (
          <button type="button" onClick={() => setAdding(true)}>
            {t("families.referrals.add")}
          </button>
        ))}
    </section>
  );
}

function Referral({ r, consented, onChange }: { r: ReferralView; consented: boolean; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [editing, setEditing] = useState(false);
  return (
    <li data-referral={r.id} data-status={r.status} data-result={r.result ?? ""}>
      <p>
        <span className="badge">{t(`families.referrals.statuses.${r.status}`)}</span>{" "}
        {r.result && <strong>{t(`families.referrals.results.${r.result}`)}</strong>}
        {r.resultOn && <span dir="ltr"> {r.resultOn}</span>} · {r.bodyRef ? <bdi dir="ltr">{r.bodyRef}</bdi> : <span className="muted">{t("families.referrals.noBody")}</span>}
      </p>
      <ReferralFacts v={r} />
      {r.history.length > 0 && (
        <details>
          <summary>{t("families.referrals.history", { count: r.history.length })}</summary>
          <ol className="fam-plain">
            {r.history.map((h) => (
              <li key={h.version}>
                {t("families.referrals.version", { n: fmt.num(h.version), when: fmt.dateTime(h.recordedAt) })} · {t(`families.referrals.statuses.${h.status}`)}
                {h.result && ` · ${t(`families.referrals.results.${h.result}`)}`} · {t("families.referrals.recordedBy")} <Person id={h.recordedBy} />
              </li>
            ))}
          </ol>
        </details>
      )}
      {consented &&
        (editing ? (
          <ReferralForm current={r} onDone={() => setEditing(false)} onChange={onChange} />
        ) : (
          <button type="button" className="link-button" onClick={() => setEditing(true)}>
            {t("families.referrals.edit")}
          </button>
        ))}
    </li>
  );
}

function ReferralFacts({ v }: { v: ReferralView }) {
  const { t } = useTranslation();
  const facts: [string, string | null][] = [
    ["sampleFrom", v.sampleFrom],
    ["sampleTakenOn", v.sampleTakenOn],
    ["lab", v.lab],
    ["labRef", v.labRef],
    ["note", v.note || null],
  ];
  return (
    <dl className="pairs">
      {facts
        .filter(([, x]) => x)
        .map(([k, x]) => (
          <Pair key={k} term={t(`families.referrals.${k}`)}>
            <span dir="auto">{x}</span>
          </Pair>
        ))}
    </dl>
  );
}

/** A new referral (reportId) or a change to one (current): the fields as they stand, sent in full. */
function ReferralForm({ reportId, current, onDone, onChange }: { reportId?: string; current?: ReferralView; onDone: () => void; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const act = useAct(onChange);
  const key = current?.id ?? "new";
  const [f, setF] = useState({
    bodyId: current?.bodyRef ?? "",
    status: (current?.status ?? "requested") as ReferralStatus,
    sampleFrom: current?.sampleFrom ?? "",
    sampleTakenOn: current?.sampleTakenOn ?? "",
    lab: current?.lab ?? "",
    labRef: current?.labRef ?? "",
    result: (current?.result ?? "") as ReferralResult | "",
    resultOn: current?.resultOn ?? "",
    note: current?.note ?? "",
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const orNull = (x: string): string | null => x.trim() || null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input: ReferralInput = {
      bodyId: orNull(f.bodyId),
      status: f.status,
      sampleFrom: orNull(f.sampleFrom),
      sampleTakenOn: orNull(f.sampleTakenOn),
      lab: orNull(f.lab),
      labRef: orNull(f.labRef),
      result: f.status === "result" && f.result ? f.result : null,
      resultOn: f.status === "result" ? orNull(f.resultOn) : null,
      note: f.note.trim(),
    };
    void act.run(() => (current ? families.updateReferral(current.id, { ...input, expectedVersion: current.version }) : families.refer(reportId!, input))).then((ok) => ok && onDone());
  };
  const field = (k: "bodyId" | "sampleFrom" | "lab" | "labRef" | "note", label: string, dir: "ltr" | "auto" = "auto") => (
    <div className="field">
      <label htmlFor={`ref-${key}-${k}`}>{t(label)}</label>
      <input id={`ref-${key}-${k}`} dir={dir} value={f[k]} onChange={set(k)} />
    </div>
  );
  const date = (k: "sampleTakenOn" | "resultOn", label: string) => (
    <div className="field">
      <label htmlFor={`ref-${key}-${k}`}>{t(label)}</label>
      <input id={`ref-${key}-${k}`} type="date" dir="ltr" value={f[k]} onChange={set(k)} />
    </div>
  );
  return (
    <form onSubmit={submit} data-testid="referral-form">
      {field("bodyId", "families.referrals.body", "ltr")}
      <div className="field">
        <label htmlFor={`ref-${key}-status`}>{t("families.referrals.status")}</label>
        <select id={`ref-${key}-status`} value={f.status} onChange={set("status")}>
          {REFERRAL_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`families.referrals.statuses.${s}`)}
            </option>
          ))}
        </select>
      </div>
      {f.status === "result" && (
        <>
          <div className="field">
            <label htmlFor={`ref-${key}-result`}>{t("families.referrals.result")}</label>
            <select id={`ref-${key}-result`} value={f.result} onChange={set("result")}>
              <option value="">{t("families.referrals.noResult")}</option>
              {REFERRAL_RESULTS.map((s) => (
                <option key={s} value={s}>
                  {t(`families.referrals.results.${s}`)}
                </option>
              ))}
            </select>
          </div>
          {date("resultOn", "families.referrals.resultOn")}
        </>
      )}
      {field("sampleFrom", "families.referrals.sampleFrom")}
      {date("sampleTakenOn", "families.referrals.sampleTakenOn")}
      {field("lab", "families.referrals.lab")}
      {field("labRef", "families.referrals.labRef", "ltr")}
      {field("note", "families.referrals.note")}
      <ErrorNote error={act.error} />
      <div className="actions">
        <button type="submit" disabled={act.busy}>
          {t(current ? "families.referrals.saveChange" : "families.referrals.save")}
        </button>{" "}
        <button type="button" className="link-button" onClick={onDone}>
          {t("families.referrals.cancel")}
        </button>
      </div>
    </form>
  );
}
