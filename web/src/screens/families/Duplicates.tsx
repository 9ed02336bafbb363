import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { DuplicateStatus, DuplicateView } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { families } from "./api.ts";
import { useAct, useReportName } from "./shared.tsx";
import "./families.css";

/**
 * Two reports that may be the same person (two relatives reported them): side by side, with why they look
 * alike; accepting merges them into the one chosen to stay, rejecting keeps both.
 */
const STATUSES: DuplicateStatus[] = ["proposed", "accepted", "rejected", "superseded"];

export function Duplicates(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [status, setStatus] = useState<DuplicateStatus>("proposed");
  const [scanned, setScanned] = useState<number | null>(null);
  const list = useAsync(() => families.duplicates(status), [status]);
  const scanning = useAct(list.reload);
  const scan = () => void scanning.run(async () => setScanned((await families.scanDuplicates()).proposed));
  return (
    <section aria-labelledby="fam-dups-title">
      <div className="screen-head">
        <h1 id="fam-dups-title">{t("families.duplicates.title")}</h1>
        <button type="button" disabled={scanning.busy} onClick={scan}>
          {t("families.duplicates.scan")}
        </button>
      </div>
      <p className="muted small">{t("families.duplicates.intro")}</p>
      {scanned !== null && <p role="status">{t("families.duplicates.scanned", { n: fmt.num(scanned) })}</p>}
      <ErrorNote error={scanning.error} />
      <div className="field fam-narrow">
        <label htmlFor="dup-status">{t("families.fields.status")}</label>
        <select id="dup-status" value={status} onChange={(e) => setStatus(e.target.value as DuplicateStatus)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`families.duplicates.statuses.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p>{t("families.duplicates.none")}</p>}
      {list.data?.map((d) => (
        <Pairing key={d.id} d={d} onChange={list.reload} />
      ))}
    </section>
  );
}

function Pairing({ d, onChange }: { d: DuplicateView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const name = useReportName();
  const [survivor, setSurvivor] = useState(d.a.id);
  const [reason, setReason] = useState("");
  const { busy, error, run: act } = useAct(onChange);
  const head = `dup-${d.id}`;
  return (
    <article className="card fam-dup" aria-labelledby={head} data-status={d.status}>
      <h2 id={head}>{t("families.duplicates.pair", { score: fmt.num(Math.round(d.score * 10) / 10) })}</h2>
      <div className="fam-sides">
        {[d.a, d.b].map((s) => (
          <div key={s.id} className="fam-side">
            <Link to={`/families/reports/${s.id}`}>
              <span dir="ltr">{s.ref}</span>
            </Link>
            <p dir="auto">{name(s)}</p>
            {d.status === "proposed" && (
              <div className="fam-check">
                <input type="radio" id={`${head}-keep-${s.id}`} name={`${head}-keep`} checked={survivor === s.id} onChange={() => setSurvivor(s.id)} />
                <label htmlFor={`${head}-keep-${s.id}`}>{t("families.duplicates.keep")}</label>
              </div>
            )}
          </div>
        ))}
      </div>
      <ul className="fam-plain small">
        {d.reasons.map((r, i) => {
          const w = d.words?.[i];
          return w ? (
            <li key={i} dir="auto">
              {t(`families.duplicates.why.${w.key}`, w.params)}
            </li>
          ) : (
            <li key={i} lang="en" dir="ltr">
              {r}
            </li>
          );
        })}
      </ul>
      {d.status === "proposed" ? (
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`${head}-reason`}>{t("families.duplicates.reason")}</label>
            <input id={`${head}-reason`} dir="auto" value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="button" disabled={busy} onClick={() => void act(() => families.acceptDuplicate(d.id, survivor, reason.trim() || undefined))}>
            {t("families.duplicates.accept")}
          </button>
          <button type="button" disabled={busy} onClick={() => void act(() => families.rejectDuplicate(d.id, reason.trim() || undefined))}>
            {t("families.duplicates.reject")}
          </button>
        </div>
      ) : (
        d.reason && <p className="muted small" dir="auto">{d.reason}</p>
      )}
      <ErrorNote error={error} />
    </article>
  );
}
