import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useAct } from "../catalogue/shared.tsx";
import { authenticity } from "./api.ts";
import { FindingText, SeverityBadge } from "./words.tsx";
import "./authenticity.css";

/** The photo page's authenticity section: what the latest analysis of its card found about it. */
export function PhotoAuthenticity({ sha256 }: { sha256: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const a = useAsync(() => authenticity.photo(sha256), [sha256]);
  const [ela, setEla] = useState<string | null>(null);
  const { busy, error, act } = useAct();
  const d = a.data;
  return (
    <section aria-labelledby="aut-photo-title" data-testid="aut-photo">
      <h2 id="aut-photo-title">{t("authenticity.photo.title")}</h2>
      <ErrorNote error={a.error ?? error} />
      {d && !d.run && <p className="muted">{t("authenticity.photo.none")}</p>}
      {d?.run && d.source && (
        <>
          <p className="small muted">
            <Link to={`/authenticity/${encodeURIComponent(d.source.id)}`}>{t("authenticity.photo.from", { source: d.source.label, at: fmt.dateTime(d.runAt) })}</Link>
          </p>
          {d.summary && (
            <dl className="pairs">
              <div>
                <dt>{t("authenticity.photo.camera")}</dt>
                <dd>{d.summary.camera}</dd>
              </div>
              <div>
                <dt>{t("authenticity.photo.signature")}</dt>
                <dd>
                  <code dir="ltr">{d.summary.signature}</code>
                </dd>
              </div>
              {d.summary.quality !== null && (
                <div>
                  <dt>{t("authenticity.photo.quality")}</dt>
                  <dd>
                    {fmt.num(d.summary.quality)}
                    {d.summary.qualityExact ? ` (${t("authenticity.photo.exact")})` : ""}
                  </dd>
                </div>
              )}
              <div>
                <dt>{t("authenticity.photo.huffman")}</dt>
                <dd>{t(`authenticity.photo.huffmanKinds.${d.summary.huffman}`)}</dd>
              </div>
            </dl>
          )}
          {d.findings.length === 0 ? (
            <p>{t("authenticity.photo.nothing")}</p>
          ) : (
            <ul className="aut-findings">
              {d.findings.map((f, i) => (
                <li key={i} data-key={f.key}>
                  <SeverityBadge s={f.severity} /> <FindingText f={f} />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {session.can("authenticity.ela") && (
        <>
          <p>
            <button type="button" disabled={busy} onClick={() => void act(async () => setEla(URL.createObjectURL(await authenticity.ela(sha256))))}>
              {t("authenticity.photo.ela")}
            </button>
          </p>
          <p className="muted small">{t("authenticity.photo.elaNote")}</p>
          {ela && <img className="aut-ela" src={ela} alt={t("authenticity.photo.elaAlt")} />}
        </>
      )}
    </section>
  );
}
