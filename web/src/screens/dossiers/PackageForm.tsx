import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { CLEARANCES, type Clearance } from "../../api/types/dossiers.ts";
import type { Job } from "../../api/types.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote, wordKey } from "../../components/ErrorNote.tsx";
import { useAct } from "../catalogue/shared.tsx";
import { dossiers } from "./api.ts";
import { TimeLeft } from "../../components/TimeLeft.tsx";

/**
 * A package of a frozen version for one recipient, built as a job: the page follows its progress and, when it is
 * done, offers the bag as .tar or .zip. The handover (recipient, clearance, purpose) is logged by the server.
 */
export function PackageForm({ id, versions, onBuilt }: { id: string; versions: number[]; onBuilt?: () => void }) {
  const { t, i18n } = useTranslation();
  const fmt = useFormat();
  const [version, setVersion] = useState(versions.at(-1) ?? 1);
  const [recipient, setRecipient] = useState("");
  const [clearance, setClearance] = useState<Clearance>("redacted");
  const [purpose, setPurpose] = useState("");
  const [job, setJob] = useState<Job | null>(null);
  const { busy, error, act } = useAct();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setJob(null);
    await act(async () => {
      const q = await dossiers.buildPackage(id, { version, recipient: recipient.trim(), clearance, purpose: purpose.trim(), lang: i18n.language === "ar" ? "ar" : "en" });
      for (;;) {
        const j = await dossiers.job(q.job);
        setJob(j);
        if (j.status === "done" || j.status === "failed") {
          onBuilt?.();
          break;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    });
  };

  const total = job?.progress.total ?? 0;
  return (
    <form className="dos-form" onSubmit={(e) => void submit(e)} data-testid="package-build">
      <h2>{t("dossiers.package.title")}</h2>
      <p className="muted small">{t("dossiers.package.help")}</p>
      <div className="dos-grid">
        <div className="field">
          <label htmlFor="pkg-version">{t("dossiers.versions.version")}</label>
          <select id="pkg-version" value={version} onChange={(e) => setVersion(Number(e.target.value))}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {fmt.num(v)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="pkg-clearance">{t("dossiers.package.clearance")}</label>
          <select id="pkg-clearance" value={clearance} onChange={(e) => setClearance(e.target.value as Clearance)}>
            {CLEARANCES.map((c) => (
              <option key={c} value={c}>
                {t(`dossiers.clearances.${c}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="pkg-recipient">{t("dossiers.package.recipient")}</label>
          <input id="pkg-recipient" dir="auto" required maxLength={300} value={recipient} onChange={(e) => setRecipient(e.target.value)} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="pkg-purpose">{t("dossiers.package.purpose")}</label>
        <textarea id="pkg-purpose" dir="auto" required maxLength={2000} rows={2} value={purpose} onChange={(e) => setPurpose(e.target.value)} />
      </div>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy || !recipient.trim() || !purpose.trim()}>
        {t("dossiers.package.submit")}
      </button>
      {job && (
        <div className="dos-job" role="status" aria-live="polite">
          {job.status !== "done" && job.status !== "failed" && (
            <>
              <progress max={total || 1} value={job.progress.done} aria-label={t("dossiers.package.progress")} />{" "}
              <span>{total ? fmt.percent(job.progress.done / total) : t(`dossiers.package.status.${job.status}`)}</span>{" "}
              <TimeLeft done={job.progress.done} total={total} />
            </>
          )}
          {job.status === "failed" && <p className="error">{t("dossiers.package.failed", { error: (job.errorKey && wordKey(job.errorKey, job.errorParams ?? {}, t, i18n.exists.bind(i18n))) || job.error || "" })}</p>}
          {job.status === "done" && (
            <p>
              {t("dossiers.package.ready")}{" "}
              <a href={dossiers.downloadUrl(job.id, "tar")} download data-testid="package-tar">
                {t("dossiers.package.downloadTar")}
              </a>{" "}
              <a href={dossiers.downloadUrl(job.id, "zip")} download>
                {t("dossiers.package.downloadZip")}
              </a>
            </p>
          )}
        </div>
      )}
    </form>
  );
}
