import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import type { HistoryEvent, MetadataView, OriginalDetail } from "../api/types.ts";
import { useFormat } from "../app/prefs.tsx";
import { Pair } from "../components/Pair.tsx";
import { useSession } from "../app/session.tsx";
import type { ScreenProps } from "../app/screens.ts";
import { Dialog } from "../components/Dialog.tsx";
import { Person } from "../components/Person.tsx";
import { ErrorNote, ServerText } from "../components/ErrorNote.tsx";
import { Hash } from "../components/Hash.tsx";
import { Notice } from "../components/Notice.tsx";
import { useAsync } from "../components/useAsync.ts";
import { ZoomPan } from "../components/ZoomPan.tsx";
import { EventDetail, SourceLabel, eventTypeKey } from "../components/events.tsx";
import { ProofPanel } from "../components/ProofPanel.tsx";
import { PhotoAuthenticity } from "./authenticity/PhotoSection.tsx";
import { PhotoNav } from "./browse/PhotoNav.tsx";
import { AddToDossier } from "./browse/AddToDossier.tsx";

/**
 * One photograph: blurred until the viewer reveals it for this view (with a reason, recorded in the custody log
 * before the server sends a byte); zoom and pan; details, hashes, metadata as the viewer's role may see it; its
 * custody history; and its inclusion proof, checked here in the page and downloadable to check elsewhere.
 */
export function Viewer({ params }: ScreenProps) {
  const sha256 = params.sha256 ?? "";
  const { t } = useTranslation();
  const session = useSession();
  const original = useAsync(() => api.original(sha256), [sha256]);
  const metadata = useAsync(() => api.originalMetadata(sha256), [sha256]);
  const history = useAsync(() => api.originalEvents(sha256), [sha256]);
  const [revealed, setRevealed] = useState<{ url: string; event: string | null } | null>(null);
  const [asking, setAsking] = useState<"preview" | "original" | null>(null);

  // The revealed image lives only as long as this view: leaving (or "blur again") lets it go.
  useEffect(
    () => () => {
      if (revealed) URL.revokeObjectURL(revealed.url);
    },
    [revealed],
  );

  const o = original.data;
  const hasBlurred = o?.renditions.some((r) => r.kind === "blurred") ?? false;
  const hasPreview = o?.renditions.some((r) => r.kind === "preview") ?? false;
  const preview = o?.renditions.find((r) => r.kind === "preview");

  return (
    <section className="viewer" aria-labelledby="viewer-title">
      <PhotoNav sha256={sha256} />
      <div className="screen-head">
        <h1 id="viewer-title">{t("viewer.title")}</h1>
        <Hash value={sha256} short />
      </div>
      <ErrorNote error={original.error} />
      {o && (
        <div className="viewer-layout">
          <div className="viewer-image">
            {revealed ? (
              <Notice kind="warn" title={t("viewer.revealedTitle")}>
                <p>{t("viewer.revealedNote", { event: revealed.event ?? "" })}</p>
                <button type="button" onClick={() => setRevealed(null)}>
                  {t("viewer.blurAgain")}
                </button>
              </Notice>
            ) : (
              <Notice kind="info">
                <p>{t("viewer.blurredNote")}</p>
                {session.can("original.reveal") && hasPreview && (
                  <button type="button" className="primary" onClick={() => setAsking("preview")}>
                    {t("viewer.reveal")}
                  </button>
                )}
              </Notice>
            )}
            {revealed ? (
              <ZoomPan src={revealed.url} alt={t("viewer.revealedAlt")} label={t("viewer.imageLabelRevealed")} width={preview?.width ?? null} height={preview?.height ?? null} />
            ) : hasBlurred ? (
              <ZoomPan src={api.blurredUrl(sha256)} alt={t("viewer.blurredAlt")} label={t("viewer.imageLabelBlurred")} width={o.width} height={o.height} />
            ) : (
              <p className="no-image large">{t("viewer.noImage", { format: o.format.toUpperCase() })}</p>
            )}
          </div>
          <div className="viewer-panel">
            <Details o={o} />
            {session.can("dossier.edit") && (
              <p>
                <AddToDossier kind="photo" refText={sha256} />
              </p>
            )}
            {session.can("original.reveal") && (
              <p>
                <button type="button" onClick={() => setAsking("original")}>
                  {t("viewer.downloadOriginal")}
                </button>
              </p>
            )}
            <section aria-labelledby="hashes-title">
              <h2 id="hashes-title">{t("viewer.hashes")}</h2>
              <dl className="pairs">
                <Pair term={t("viewer.sha256Original")}>
                  <Hash value={o.sha256} />
                </Pair>
                {o.renditions.map((r) => (
                  <Pair key={r.kind} term={t("viewer.renditionHash", { kind: t(`viewer.renditionKinds.${r.kind}`, { defaultValue: r.kind }) })}>
                    <Hash value={r.sha256} short />
                  </Pair>
                ))}
                {o.phash && (
                  <Pair term={t("viewer.phash")}>
                    <code dir="ltr">{o.phash}</code>
                  </Pair>
                )}
              </dl>
            </section>
            <MetadataPanel data={metadata.data} error={metadata.error} />
            {session.can("authenticity.read") && <PhotoAuthenticity sha256={sha256} />}
          </div>
        </div>
      )}
      {o && (
        <>
          <History events={history.data?.events ?? null} error={history.error} />
          {/* Inclusion proofs name what the archive holds: only roles allowed the log's entries get one here. */}
          {session.can("log.entries") && <ProofPanel sha256={sha256} />}
        </>
      )}
      <RevealDialog
        kind={asking}
        onClose={() => setAsking(null)}
        onReveal={async (reason) => {
          const kind = asking ?? "preview";
          if (kind === "original") {
            const r = await api.download(sha256, reason);
            const url = URL.createObjectURL(r.blob);
            const a = document.createElement("a");
            a.href = url;
            a.download = `${sha256}.${o?.format ?? "bin"}`;
            document.body.append(a);
            a.click();
            a.remove();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          } else {
            const r = await api.reveal(sha256, kind, reason);
            setRevealed({ url: URL.createObjectURL(r.blob), event: r.event });
          }
          setAsking(null);
          await history.reload();
        }}
      />
    </section>
  );
}

function Details({ o }: { o: OriginalDetail }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const camera = [o.camera.make, o.camera.model].filter(Boolean).join(" ");
  return (
    <section aria-labelledby="details-title">
      <h2 id="details-title">{t("viewer.details")}</h2>
      <dl className="pairs">
        <Pair term={t("viewer.status")}>
          <span className={`badge ${o.status === "quarantined" ? "badge-warn" : "badge-ok"}`}>{t(`status.${o.status}`, { defaultValue: o.status })}</span>
        </Pair>
        {o.quarantineReason && (
          <Pair term={t("viewer.quarantineReason")}>
            <ServerText text={o.quarantineReason} messageKey={o.quarantineKey} params={o.quarantineParams} />
          </Pair>
        )}
        <Pair term={t("viewer.format")}>{o.format.toUpperCase()}</Pair>
        <Pair term={t("viewer.size")}>{fmt.bytes(o.size)}</Pair>
        {o.width && o.height && <Pair term={t("viewer.dimensions")}>{t("viewer.pixels", { w: fmt.num(o.width), h: fmt.num(o.height) })}</Pair>}
        <Pair term={t("viewer.captured")}>{o.captureTime ? fmt.wallClock(o.captureTime) : t("gallery.noDate")}</Pair>
        {camera && (
          <Pair term={t("viewer.camera")}>
            <span dir="auto">{camera}</span>
          </Pair>
        )}
        {o.camera.serial && (
          <Pair term={t("viewer.serial")}>
            <span dir="ltr">{o.camera.serial}</span>
          </Pair>
        )}
        <Pair term={t("viewer.firstSeen")}>{fmt.dateTime(o.firstSeenAt)}</Pair>
        <Pair term={t("viewer.sightings")}>
          <ul className="plain sightings">
            {o.sightings.map((s, i) => (
              <li key={i}>
                {t(`outcomes.${s.outcome}`, { defaultValue: s.outcome })}
                {" "}
                <SourceLabel id={s.source} />{" "}
                {s.path && <code dir="ltr">{s.path}</code>}
              </li>
            ))}
          </ul>
        </Pair>
      </dl>
    </section>
  );
}

function flatten(value: unknown, prefix: string, out: [string, string][]): void {
  if (out.length >= 400) return;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    const text = Array.isArray(value) ? value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ") : String(value);
    out.push([prefix, text.length > 300 ? `${text.slice(0, 300)}…` : text]);
  }
}

function MetadataPanel({ data, error }: { data: MetadataView | null; error: unknown }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const rows: [string, string][] = [];
  if (data) flatten(data.parsed, "", rows);
  return (
    <section aria-labelledby="metadata-title">
      <h2 id="metadata-title">{t("viewer.metadata")}</h2>
      <ErrorNote error={error} />
      {data?.hidden && <Notice kind="info">{t("viewer.metadataHidden")}</Notice>}
      {data && rows.length === 0 && <p className="muted">{t("viewer.metadataNone")}</p>}
      {rows.length > 0 && (
        <details>
          <summary>{t("viewer.metadataShow", { n: fmt.num(rows.length), count: rows.length })}</summary>
          <table className="table compact" dir="ltr" lang="en">
            <caption className="sr-only">{t("viewer.metadata")}</caption>
            <tbody>
              {rows.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td dir="auto">{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {data && data.problems.length > 0 && (
        <>
          <h3>{t("viewer.metadataProblems")}</h3>
          <ul lang="en" dir="ltr">
            {data.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function History({ events, error }: { events: HistoryEvent[] | null; error: unknown }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section aria-labelledby="history-title" className="history">
      <h2 id="history-title">{t("viewer.history")}</h2>
      <p className="muted small">{t("viewer.historyIntro")}</p>
      <ErrorNote error={error} />
      {events && (
        <div className="table-wrap">
          <table className="table" data-testid="custody-history">
            <thead>
              <tr>
                <th scope="col">{t("events.seq")}</th>
                <th scope="col">{t("events.event")}</th>
                <th scope="col">{t("events.at")}</th>
                <th scope="col">{t("events.actor")}</th>
                <th scope="col">{t("events.outcome")}</th>
                <th scope="col">{t("events.detail")}</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.seq} data-type={e.type}>
                  <td>{fmt.num(e.seq)}</td>
                  <td>{t(eventTypeKey(e.type), { defaultValue: e.type })}</td>
                  <td>{fmt.dateTime(e.at)}</td>
                  <td>
                    <Person id={e.actor.id} />
                  </td>
                  <td>{t(`events.outcomes.${e.outcome}`, { defaultValue: e.outcome })}</td>
                  <td>
                    <EventDetail detail={e.detail} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RevealDialog({ kind, onClose, onReveal }: { kind: "preview" | "original" | null; onClose: () => void; onReveal: (reason: string) => Promise<void> }) {
  const { t } = useTranslation();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (kind) {
      setReason("");
      setError(null);
    }
  }, [kind]);
  return (
    <Dialog open={kind !== null} title={kind === "original" ? t("viewer.downloadTitle") : t("viewer.revealTitle")} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          onReveal(reason)
            .catch(setError)
            .finally(() => setBusy(false));
        }}
      >
        <p>{t("viewer.revealExplain")}</p>
        <div className="field">
          <label htmlFor="reveal-reason">{t("viewer.revealReason")}</label>
          <textarea id="reveal-reason" required minLength={4} maxLength={500} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} dir="auto" />
        </div>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || reason.trim().length < 4}>
            {kind === "original" ? t("viewer.downloadConfirm") : t("viewer.revealConfirm")}
          </button>
          <button type="button" onClick={onClose}>
            {t("common.cancel")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
