import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { FlagView } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";
import "./families.css";

/** What needs a caseworker: a case reopened (a decision changed, a candidate outranked) and a family's request. */
export function Flags(_props: ScreenProps) {
  const { t } = useTranslation();
  const [all, setAll] = useState(false);
  const flags = useAsync(() => families.flags(all), [all]);
  return (
    <section aria-labelledby="fam-flags-title">
      <div className="screen-head">
        <h1 id="fam-flags-title">{t("families.flags.title")}</h1>
        <div className="fam-check">
          <input id="flags-all" type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
          <label htmlFor="flags-all">{t("families.flags.showCleared")}</label>
        </div>
      </div>
      <p className="muted small">{t("families.flags.intro")}</p>
      <ErrorNote error={flags.error} />
      {flags.data?.length === 0 && <p>{t("families.flags.none")}</p>}
      <ul className="fam-plain" data-testid="flags">
        {flags.data?.map((f) => (
          <FlagItem key={f.id} f={f} onChange={flags.reload} />
        ))}
      </ul>
    </section>
  );
}

function FlagItem({ f, onChange }: { f: FlagView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [note, setNote] = useState("");
  const { busy, error, run } = useAct(onChange);
  const clear = () => void run(() => families.clearFlag(f.id, note.trim()));
  // decision statuses in the reader's words, scores in the reader's digits
  const flagParams = (p: Record<string, string>): Record<string, string> => ({
    ...p,
    ...(p.from ? { from: t(`families.decision.statuses.${p.from}`) } : {}),
    ...(p.to ? { to: t(`families.decision.statuses.${p.to}`) } : {}),
    ...(p.score ? { score: fmt.num(Number(p.score)) } : {}),
    ...(p.floor ? { floor: fmt.num(Number(p.floor)) } : {}),
  });
  return (
    <li className="card fam-flag" data-kind={f.kind}>
      <p>
        <strong>{t(`families.flags.kinds.${f.kind}`)}</strong> ·{" "}
        <Link to={`/families/reports/${f.reportId}`}>
          <span dir="ltr">{f.reportRef}</span>
        </Link>{" "}
        · <span className="muted small">{fmt.dateTime(f.createdAt)}</span>
      </p>
      {f.words ? (
        <p dir="auto" className="small">
          {t(`families.flags.why.${f.words.key}`, flagParams(f.words.params))}
        </p>
      ) : (
        <p lang="en" dir="ltr" className="small">
          {f.detail}
        </p>
      )}
      {f.clearedAt ? (
        <p className="muted small">
          {t("families.flags.cleared", { when: fmt.dateTime(f.clearedAt) })} <span dir="auto">{f.clearNote}</span>
        </p>
      ) : (
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`flag-note-${f.id}`}>{t("families.flags.note")}</label>
            <input id={`flag-note-${f.id}`} dir="auto" value={note} onChange={(e) => setNote(e.target.value)} />
          </div>
          <button type="button" disabled={busy || !note.trim()} onClick={clear}>
            {t("families.flags.clear")}
          </button>
        </div>
      )}
      <ErrorNote error={error} />
    </li>
  );
}
