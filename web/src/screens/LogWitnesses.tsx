import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Notice } from "../components/Notice.tsx";
import { useAsync } from "../components/useAsync.ts";

/** The log page's witnesses: who they are, what each last cosigned, and any alarm (for anyone). */
export function LogWitnesses() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const w = useAsync(() => api.logWitnesses(), []);
  const d = w.data;
  return (
    <section aria-labelledby="witnesses-title" className="card" data-testid="witnesses">
      <h2 id="witnesses-title">{t("logWitnesses.title")}</h2>
      <p className="small">{t("logWitnesses.intro")}</p>
      <ErrorNote error={w.error} />
      {d && d.witnesses.length === 0 && <p>{t("logWitnesses.none")}</p>}
      {d && d.quorum && <p dir="auto">{t("logWitnesses.quorum", { quorum: d.quorum })}</p>}
      {d && d.witnesses.length > 0 && (
        <ul>
          {d.witnesses.map((x) => (
            <li key={x.name}>
              <strong dir="ltr">{x.name}</strong>
              <div>
                {x.lastCosigned
                  ? t("logWitnesses.lastCosigned", { size: fmt.num(x.lastCosigned.size), at: fmt.dateTime(x.lastCosigned.at) })
                  : t("logWitnesses.neverCosigned")}
                {x.lastCosigned && d.latestSize !== null && x.lastCosigned.size < d.latestSize && (
                  <span className="muted small"> · {t("logWitnesses.behind", { size: fmt.num(d.latestSize) })}</span>
                )}
              </div>
              {x.lastAlarm && (
                <div data-testid="witness-alarm">
                  <Notice kind="error" title={t("logWitnesses.alarm", { kind: x.lastAlarm.kind, size: fmt.num(x.lastAlarm.size), at: fmt.dateTime(x.lastAlarm.at), n: fmt.num(x.alarms) })} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
