import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import type { ScreenProps } from "../app/screens.ts";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Hash } from "../components/Hash.tsx";
import { Notice } from "../components/Notice.tsx";
import { Pair } from "../components/Pair.tsx";
import { useAsync } from "../components/useAsync.ts";
import { checkCheckpoint } from "../proof/verify.ts";
import { LogWitnesses } from "./LogWitnesses.tsx";

/**
 * The custody log for anyone, signed in or not: the latest signed checkpoint (checked here against the log's
 * key), when it was signed and whether an authority timestamped it, the last whole-archive verification, and a
 * guide for a stranger who wants to check the archive without trusting it.
 */
export function LogScreen(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const status = useAsync(() => api.logStatus(), []);
  const [signature, setSignature] = useState<"checking" | "ok" | "failed" | null>(null);
  const s = status.data;

  useEffect(() => {
    if (!s?.checkpoint) return;
    setSignature("checking");
    void checkCheckpoint(s.checkpoint.note, s.verifierKey).then((r) => setSignature(r.ok ? "ok" : "failed"));
  }, [s]);

  const urls = useMemo(() => {
    if (!s?.checkpoint) return null;
    return {
      checkpoint: URL.createObjectURL(new Blob([s.checkpoint.note], { type: "text/plain" })),
      key: URL.createObjectURL(new Blob([`${s.verifierKey}\n`], { type: "text/plain" })),
    };
  }, [s]);
  useEffect(
    () => () => {
      if (urls) for (const u of Object.values(urls)) URL.revokeObjectURL(u);
    },
    [urls],
  );

  return (
    <section className="log" aria-labelledby="log-title">
      <h1 id="log-title">{t("log.title")}</h1>
      <p>{t("log.intro")}</p>
      <ErrorNote error={status.error} />
      {s && (
        <div className="columns">
          <section aria-labelledby="cp-title" className="card">
            <h2 id="cp-title">{t("log.checkpoint")}</h2>
            {s.checkpoint ? (
              <>
                <dl className="pairs">
                  <Pair term={t("log.origin")}>
                    <code dir="ltr">{s.origin}</code>
                  </Pair>
                  <Pair term={t("log.size")}>
                    <span data-testid="checkpoint-size">{fmt.num(s.checkpoint.size)}</span>
                  </Pair>
                  <Pair term={t("log.root")}>
                    <Hash value={s.checkpoint.rootHash} />
                  </Pair>
                  <Pair term={t("log.signedAt")}>{fmt.dateTime(s.checkpoint.createdAt)}</Pair>
                  <Pair term={t("log.timestamp")}>
                    {s.checkpoint.timestamped ? t("log.timestamped", { authority: s.checkpoint.authority ?? "" }) : t("log.notTimestamped")}
                  </Pair>
                  <Pair term={t("log.events")}>{fmt.num(s.events)}</Pair>
                </dl>
                {s.events > s.checkpoint.size && <p className="small muted">{t("log.pending", { n: fmt.num(s.events - s.checkpoint.size) })}</p>}
                {signature === "ok" && (
                  <div data-testid="signature-ok">
                    <Notice kind="ok" title={t("log.signatureOk")} />
                  </div>
                )}
                {signature === "failed" && <Notice kind="error" title={t("log.signatureFailed")} />}
                {signature === "checking" && <p aria-live="polite">{t("log.signatureChecking")}</p>}
                <details>
                  <summary>{t("log.noteText")}</summary>
                  <pre dir="ltr" className="command">
                    {s.checkpoint.note}
                  </pre>
                </details>
              </>
            ) : (
              <p>{t("log.noCheckpoint")}</p>
            )}
          </section>
          <section aria-labelledby="verify-title" className="card">
            <h2 id="verify-title">{t("log.lastVerify")}</h2>
            {s.lastVerify ? (
              <>
                <div data-testid={s.lastVerify.outcome === "success" ? "verify-ok" : "verify-failed"}>
                  <Notice kind={s.lastVerify.outcome === "success" ? "ok" : "error"} title={s.lastVerify.outcome === "success" ? t("log.verifyOk") : t("log.verifyFailed")} />
                </div>
                <dl className="pairs">
                  <Pair term={t("log.verifiedAt")}>{fmt.dateTime(s.lastVerify.at)}</Pair>
                  {s.lastVerify.checked !== null && <Pair term={t("log.checked")}>{fmt.num(s.lastVerify.checked)}</Pair>}
                  {s.lastVerify.failed !== null && <Pair term={t("log.failed")}>{fmt.num(s.lastVerify.failed)}</Pair>}
                  <Pair term={t("log.eventNo")}>{fmt.num(s.lastVerify.seq)}</Pair>
                </dl>
              </>
            ) : (
              <p>{t("log.neverVerified")}</p>
            )}
          </section>
          <LogWitnesses />
        </div>
      )}
      {s && (
        <section aria-labelledby="guide-title" className="guide">
          <h2 id="guide-title">{t("log.guideTitle")}</h2>
          <p>{t("log.guideIntro")}</p>
          <ol>
            <li>
              <p>{t("log.guideKey")}</p>
              <pre dir="ltr" className="command">
                {s.verifierKey}
              </pre>
              {urls && (
                <a href={urls.key} download="log.vkey">
                  {t("log.downloadKey")}
                </a>
              )}
            </li>
            <li>
              <p>{t("log.guideCheckpoint")}</p>
              {urls && (
                <p>
                  <a href={urls.checkpoint} download="checkpoint.txt">
                    {t("log.downloadCheckpoint")}
                  </a>
                </p>
              )}
              <pre dir="ltr" className="command">
                {"verify-go checkpoint -vkey @log.vkey -checkpoint checkpoint.txt"}
              </pre>
            </li>
            <li>
              <p>{t("log.guideProof")}</p>
              <pre dir="ltr" className="command">
                {"dalil verify-proof --proof proof.tlog-proof --leaf event.json --key log.vkey\nverify-go proof -vkey @log.vkey -proof proof.tlog-proof -leaf event.json"}
              </pre>
            </li>
            <li>
              <p>{t("log.guideHash")}</p>
              <pre dir="ltr" className="command">
                {"sha256sum photo.jpg"}
              </pre>
            </li>
            <li>
              <p>{t("log.guideConsistency")}</p>
              <pre dir="ltr" className="command">
                {"curl -o old.txt <archive>/log/checkpoint      # keep it\ncurl '<archive>/log/consistency?from=<old size>' -o cons.txt\nverify-go consistency -vkey @log.vkey -old old.txt -new checkpoint.txt -proof cons.txt"}
              </pre>
            </li>
            <li>
              <p>{t("log.guideTiles")}</p>
            </li>
          </ol>
        </section>
      )}
    </section>
  );
}
