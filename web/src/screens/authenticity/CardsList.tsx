import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, navigate } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useAct } from "../catalogue/shared.tsx";
import { authenticity } from "./api.ts";
import "./authenticity.css";
import { TimeLeft } from "../../components/TimeLeft.tsx";

/** Every card taken in, with its latest analysis; those who may run one can analyse a card from here. */
export function CardsList(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const data = useAsync(async () => {
    const [sources, runs] = await Promise.all([authenticity.sources(), authenticity.runs()]);
    return sources.map((s) => ({ source: s, latest: runs.find((r) => r.source.id === s.id) ?? null }));
  }, []);
  const { busy, error, act } = useAct();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);

  return (
    <section aria-labelledby="aut-title">
      <div className="screen-head">
        <h1 id="aut-title">{t("authenticity.list.title")}</h1>
      </div>
      <p className="muted small">{t("authenticity.list.intro")}</p>
      <ErrorNote error={data.error ?? error} />
      {busy && progress && (
        <p role="status" aria-live="polite">
          <progress max={progress.total || 1} value={progress.done} aria-label={t("authenticity.list.running")} /> {fmt.num(progress.done)} / {fmt.num(progress.total)} <TimeLeft done={progress.done} total={progress.total} />
        </p>
      )}
      {data.loading && !data.data && <p className="muted">{t("app.loading")}</p>}
      {data.data && (
        <div className="table-wrap">
          <table className="table" data-testid="aut-cards">
            <caption className="sr-only">{t("authenticity.list.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("authenticity.list.source")}</th>
                <th scope="col">{t("authenticity.list.photos")}</th>
                <th scope="col">{t("authenticity.list.flagged")}</th>
                <th scope="col">{t("authenticity.list.analysed")}</th>
                {session.can("authenticity.run") && <td />}
              </tr>
            </thead>
            <tbody>
              {data.data.map(({ source, latest }) => (
                <tr key={source.id}>
                  <th scope="row">
                    {latest ? (
                      <Link to={`/authenticity/${encodeURIComponent(source.id)}`}>
                        <span dir="auto">{source.label}</span>
                      </Link>
                    ) : (
                      <span dir="auto">{source.label}</span>
                    )}
                  </th>
                  <td>{latest ? fmt.num(latest.photos) : "—"}</td>
                  <td>{latest ? fmt.num(latest.flagged) : "—"}</td>
                  <td>{latest ? fmt.dateTime(latest.runAt) : t("authenticity.list.never")}</td>
                  {session.can("authenticity.run") && (
                    <td>
                      <button
                        type="button"
                        disabled={busy}
                        onClick={() =>
                          void act(async () => {
                            await authenticity.run(source.id, (done, total) => setProgress({ done, total }));
                            navigate(`/authenticity/${encodeURIComponent(source.id)}`);
                          })
                        }
                      >
                        {busy ? t("authenticity.list.running") : t("authenticity.list.run")}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
