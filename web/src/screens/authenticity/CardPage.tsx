import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import type { CameraView, Finding, RunView, SequencePoint } from "../../api/types/authenticity.ts";
import { useAct } from "../catalogue/shared.tsx";
import { authenticity } from "./api.ts";
import { FindingText, SeverityBadge } from "./words.tsx";
import "./authenticity.css";

/** One card's latest analysis: cameras and signatures, the capture-time sequence, the findings with their reasons. */
export function CardPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const source = params.source!;
  const card = useAsync(() => authenticity.card(source), [source]);
  const { busy, error, act } = useAct();
  const v = card.data;
  return (
    <section aria-labelledby="aut-card-title" data-testid="aut-card">
      <div className="screen-head">
        <h1 id="aut-card-title">
          {t("authenticity.card.title")}
          {v && (
            <>
              {" — "}
              <span dir="auto">{v.source.label}</span>
            </>
          )}
        </h1>
      </div>
      <ErrorNote error={card.error ?? error} />
      {card.loading && !v && <p className="muted">{t("app.loading")}</p>}
      {v && (
        <>
          <p className="muted small">
            {t("authenticity.card.run", { sha: v.reportSha256.slice(0, 12), seq: fmt.num(v.eventSeq), version: v.softwareVersion, at: fmt.dateTime(v.runAt) })} · {t(`authenticity.card.content.${v.parameters.content ? "on" : "off"}`)}
          </p>
          <p className="small">
            {t("authenticity.card.reportHash")}: <code dir="ltr">{v.reportSha256}</code>
          </p>
          <dl className="aut-counts">
            <div>
              <dt>{t("authenticity.card.photos")}</dt>
              <dd>{fmt.num(v.report.counts.photos)}</dd>
            </div>
            <div>
              <dt>{t("authenticity.card.flagged")}</dt>
              <dd data-testid="aut-flagged">{fmt.num(v.report.counts.flagged)}</dd>
            </div>
            {(["strong", "look", "information"] as const).map((s) => (
              <div key={s}>
                <dt>
                  <SeverityBadge s={s} />
                </dt>
                <dd>{fmt.num(v.report.counts[s])}</dd>
              </div>
            ))}
          </dl>
          {session.can("authenticity.run") && (
            <p>
              <button type="button" disabled={busy} onClick={() => void act(async () => { await authenticity.run(v.source.id); await card.reload(); })}>
                {busy ? t("authenticity.list.running") : t("authenticity.card.again")}
              </button>
            </p>
          )}
          <Cameras cameras={v.report.cameras} />
          <Sequence v={v} />
          <Findings v={v} />
        </>
      )}
    </section>
  );
}

function Cameras({ cameras }: { cameras: CameraView[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section aria-labelledby="aut-cameras-title">
      <h2 id="aut-cameras-title">{t("authenticity.cameras.title")}</h2>
      <div className="table-wrap">
        <table className="table compact" data-testid="aut-cameras">
          <caption className="sr-only">{t("authenticity.cameras.caption")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("authenticity.cameras.camera")}</th>
              <th scope="col">{t("authenticity.cameras.model")}</th>
              <th scope="col">{t("authenticity.cameras.serial")}</th>
              <th scope="col">{t("authenticity.cameras.signature")}</th>
              <th scope="col">{t("authenticity.cameras.share")}</th>
              <th scope="col">{t("authenticity.cameras.frame")}</th>
              <th scope="col">{t("authenticity.cameras.subsampling")}</th>
              <th scope="col">{t("authenticity.cameras.huffman")}</th>
              <th scope="col">{t("authenticity.cameras.tables")}</th>
              <th scope="col">{t("authenticity.cameras.thumbnail")}</th>
              <th scope="col">{t("authenticity.cameras.ifds")}</th>
              <th scope="col">{t("authenticity.cameras.makerNote")}</th>
            </tr>
          </thead>
          <tbody>
            {cameras.flatMap((c) =>
              c.signatures.map((s, i) => (
                <tr key={`${c.label}-${s.signature}`}>
                  {i === 0 && (
                    <>
                      <th scope="rowgroup" rowSpan={c.signatures.length}>
                        {c.label}
                      </th>
                      <td rowSpan={c.signatures.length} dir="ltr">
                        {[c.make, c.model].filter(Boolean).join(" ") || "?"}
                      </td>
                      <td rowSpan={c.signatures.length} dir="ltr">
                        {c.serial ?? "—"}
                      </td>
                    </>
                  )}
                  <td>
                    <code dir="ltr">{s.signature}</code>
                  </td>
                  <td>
                    <span className="aut-bar" aria-hidden="true">
                      <span style={{ inlineSize: `${Math.round((s.photos / c.photos) * 100)}%` }} />
                    </span>{" "}
                    {fmt.num(s.photos)} / {fmt.num(c.photos)}
                  </td>
                  <td dir="ltr">{s.parts.frame}</td>
                  <td dir="ltr">{s.parts.subsampling}</td>
                  <td>{t(`authenticity.photo.huffmanKinds.${s.parts.huffman}`, { defaultValue: s.parts.huffman })}</td>
                  <td>{s.ijgQuality ? t("authenticity.cameras.ijg", { quality: fmt.num(s.ijgQuality) }) : <code dir="ltr">{s.parts.tables}</code>}</td>
                  <td dir="ltr">{s.parts.thumbnail === "none" ? t("authenticity.photo.huffmanKinds.none") : s.parts.thumbnail}</td>
                  <td dir="ltr">{s.parts.ifds}</td>
                  <td dir="ltr">{s.parts.makerNote === "none" ? t("authenticity.photo.huffmanKinds.none") : s.parts.makerNote}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function seconds(exif: string | null): number | null {
  const m = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(exif ?? "");
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000 : null;
}

/** Capture time (up) against file order (across), one colour per camera; photos with a sequence finding ringed. */
function Sequence({ v }: { v: RunView }) {
  const { t } = useTranslation();
  const odd = new Set(v.report.findings.filter((f) => f.check === "sequence" && f.photo).map((f) => f.photo!));
  const pts = v.report.sequence.map((p) => ({ p, s: seconds(p.captured) })).filter((x): x is { p: SequencePoint; s: number } => x.s !== null);
  if (pts.length < 2) return null;
  const W = 720;
  const H = 260;
  const pad = 24;
  const byOrder = [...pts].sort((a, b) => a.p.order - b.p.order);
  const rank = new Map(byOrder.map((x, i) => [x.p.photo, i]));
  const t0 = Math.min(...pts.map((x) => x.s));
  const t1 = Math.max(...pts.map((x) => x.s));
  const cams = [...new Set(pts.map((x) => x.p.camera))];
  const x = (photo: string) => pad + ((rank.get(photo) ?? 0) / Math.max(1, byOrder.length - 1)) * (W - 2 * pad);
  const y = (s: number) => H - pad - ((s - t0) / Math.max(1, t1 - t0)) * (H - 2 * pad);
  return (
    <section aria-labelledby="aut-seq-title">
      <h2 id="aut-seq-title">{t("authenticity.sequence.title")}</h2>
      <p className="muted small">{t("authenticity.sequence.desc")}</p>
      <figure className="aut-plot" dir="ltr">
        <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="aut-seq-title" direction="ltr" data-testid="aut-sequence">
          <line x1={pad} y1={H - pad} x2={W - pad} y2={H - pad} className="aut-axis" />
          <line x1={pad} y1={pad} x2={pad} y2={H - pad} className="aut-axis" />
          <text x={W / 2} y={H - 4} textAnchor="middle" className="aut-axis-label">
            {t("authenticity.sequence.order")}
          </text>
          <text x={10} y={H / 2} textAnchor="middle" transform={`rotate(-90 10 ${H / 2})`} className="aut-axis-label">
            {t("authenticity.sequence.time")}
          </text>
          {pts.map(({ p, s }) => (
            <circle key={p.photo} cx={x(p.photo)} cy={y(s)} r={odd.has(p.photo) ? 5 : 2.5} className={`aut-dot aut-cam-${cams.indexOf(p.camera) % 4}${odd.has(p.photo) ? " aut-odd" : ""}`}>
              <title>{`${p.camera} ${p.name ?? ""} ${p.captured ?? ""}`}</title>
            </circle>
          ))}
        </svg>
        {odd.size > 0 && (
          <figcaption className="small">
            <span className="aut-dot-key" aria-hidden="true" /> {t("authenticity.sequence.flagged")}
          </figcaption>
        )}
      </figure>
    </section>
  );
}

function Findings({ v }: { v: RunView }) {
  const { t } = useTranslation();
  const [info, setInfo] = useState(false);
  const names = new Map(v.report.photos.map((p) => [p.sha256, p.name ?? p.sha256.slice(0, 12)]));
  const shown: Finding[] = v.report.findings.filter((f) => info || f.severity !== "information");
  return (
    <section aria-labelledby="aut-findings-title">
      <h2 id="aut-findings-title">{t("authenticity.findings.title")}</h2>
      <label className="small">
        <input type="checkbox" checked={info} onChange={(e) => setInfo(e.target.checked)} /> {t("authenticity.findings.showInfo")}
      </label>
      {shown.length === 0 && <p>{t("authenticity.findings.none")}</p>}
      <ul className="aut-findings" data-testid="aut-findings">
        {shown.map((f, i) => (
          <li key={i} data-key={f.key}>
            <SeverityBadge s={f.severity} />{" "}
            {f.photo ? (
              <Link to={`/photo/${f.photo}`}>
                <code dir="ltr">{names.get(f.photo)}</code>
              </Link>
            ) : (
              <strong>{t("authenticity.findings.card")}</strong>
            )}
            {": "}
            <FindingText f={f} />
          </li>
        ))}
      </ul>
    </section>
  );
}
