import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { checkProof, type ProofCheck } from "../proof/verify.ts";
import { useFormat } from "../app/prefs.tsx";
import { Link } from "../app/router.tsx";
import { ErrorNote } from "./ErrorNote.tsx";
import { Notice } from "./Notice.tsx";

/**
 * The photograph's inclusion proof: fetched, checked here with WebCrypto (signature of the checkpoint with the
 * log's key, then the Merkle path from the arrival event's exact bytes to the signed root), and offered as the
 * three files a stranger needs to check it elsewhere (`dalil verify-proof` or the Go verifier).
 */
export function ProofPanel({ sha256 }: { sha256: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [files, setFiles] = useState<{ proof: string; leaf: string; key: string } | null>(null);
  const [result, setResult] = useState<ProofCheck | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let alive = true;
    void (async () => {
      try {
        const [p, key] = await Promise.all([api.logProof(sha256), api.logKey()]);
        const leafBytes = new TextEncoder().encode(p.leaf);
        const r = await checkProof({ proofText: p.proof, leafBytes, verifierKey: key });
        if (!alive) return;
        setFiles({ proof: p.proof, leaf: p.leaf, key });
        setResult(r);
      } catch (e) {
        if (alive) setError(e);
      }
    })();
    return () => {
      alive = false;
    };
  }, [sha256]);

  const urls = useMemo(() => {
    if (!files) return null;
    const mk = (text: string, type: string) => URL.createObjectURL(new Blob([text], { type }));
    return { proof: mk(files.proof, "text/plain"), leaf: mk(files.leaf, "application/json"), key: mk(files.key, "text/plain") };
  }, [files]);
  useEffect(
    () => () => {
      if (urls) for (const u of Object.values(urls)) URL.revokeObjectURL(u);
    },
    [urls],
  );

  return (
    <section aria-labelledby="proof-title" className="proof">
      <h2 id="proof-title">{t("proof.title")}</h2>
      <p className="muted small">{t("proof.intro")}</p>
      <ErrorNote error={error} />
      {!result && !error && <p aria-live="polite">{t("proof.checking")}</p>}
      {result?.ok && (
        <Notice kind="ok" title={t("proof.verified")}>
          <p data-testid="proof-verified">
            {t("proof.verifiedDetail", { index: fmt.num(result.index), size: fmt.num(result.size), count: result.size })} <code dir="ltr">{result.origin}</code>
          </p>
        </Notice>
      )}
      {result && !result.ok && (
        <Notice kind="error" title={t("proof.failed")}>
          <p>{t(`proof.reasons.${result.reason}`)}</p>
        </Notice>
      )}
      {urls && (
        <>
          <ul className="downloads">
            <li>
              <a href={urls.proof} download="proof.tlog-proof">
                {t("proof.downloadProof")}
              </a>
            </li>
            <li>
              <a href={urls.leaf} download="event.json">
                {t("proof.downloadEvent")}
              </a>
            </li>
            <li>
              <a href={urls.key} download="log.vkey">
                {t("proof.downloadKey")}
              </a>
            </li>
          </ul>
          <p>{t("proof.checkYourself")}</p>
          <pre dir="ltr" className="command">
            dalil verify-proof --proof proof.tlog-proof --leaf event.json --key log.vkey
          </pre>
          <p className="small">
            {t("proof.keyWarning")} <Link to="/log">{t("proof.guideLink")}</Link>
          </p>
        </>
      )}
    </section>
  );
}
