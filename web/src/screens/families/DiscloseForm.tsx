import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { CaseView, DecisionStatus, DisclosureView } from "../../api/types/families.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";

/**
 * A staged disclosure: words first, then a blurred crop of the face, never both at once. The caseworker sees
 * what the family will see, as the portal shows it, before anything is sent; sending is the second step.
 */
export function DiscloseForm({ kase, bodyId, decision, told, onDone }: { kase: CaseView; bodyId: string; decision: DecisionStatus; told: DisclosureView[]; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const textSent = told.some((d) => d.stage === "text");
  const faceSent = told.some((d) => d.stage === "blurred_face");
  const photosAllowed = kase.report.consent.viewingPhotos?.given === true;
  const stage: "text" | "blurred_face" = textSent ? "blurred_face" : "text";
  const [text, setText] = useState("");
  const [consentNote, setConsentNote] = useState("");
  const [reason, setReason] = useState("");
  const [previewing, setPreviewing] = useState(false);
  const { busy, error, run } = useAct(onDone);
  const id = `disclose-${bodyId}`;

  if (faceSent) return <p className="muted small">{t("families.disclose.allSent")}</p>;
  if (stage === "blurred_face" && decision === "excluded") return <p className="muted small">{t("families.disclose.excluded")}</p>;
  if (stage === "blurred_face" && !photosAllowed) return <p className="muted small">{t("families.disclose.needConsent")}</p>;
  if (kase.members.length === 0) return <p className="muted small">{t("families.disclose.noMember")}</p>;

  const preview = (e: FormEvent) => {
    e.preventDefault();
    setPreviewing(true);
  };
  const send = () =>
    void run(async () => {
      await families.disclose(kase.report.id, { bodyId, stage, text: text.trim(), consentNote: consentNote.trim(), reason: reason.trim() });
      setPreviewing(false);
    });
  return (
    <form className="fam-disclose" onSubmit={preview} data-testid="disclose-form" data-stage={stage}>
      <fieldset disabled={busy}>
        <legend>{t(`families.disclose.stage_${stage}`)}</legend>
        <p className="muted small">{t(`families.disclose.help_${stage}`)}</p>
        <div className="field">
          <label htmlFor={`${id}-text`}>{t("families.disclose.text")}</label>
          <textarea id={`${id}-text`} dir="auto" rows={4} required value={text} readOnly={previewing} onChange={(e) => setText(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-consent`}>{t("families.disclose.consentNote")}</label>
          <input id={`${id}-consent`} dir="auto" required value={consentNote} readOnly={previewing} onChange={(e) => setConsentNote(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-reason`}>{t("families.disclose.reason")}</label>
          <input id={`${id}-reason`} dir="auto" required value={reason} readOnly={previewing} onChange={(e) => setReason(e.target.value)} />
        </div>
        {!previewing && (
          <button type="submit" data-testid="preview-disclosure" disabled={!text.trim() || !consentNote.trim() || !reason.trim()}>
            {t("families.disclose.preview")}
          </button>
        )}
        {previewing && (
          <div className="fam-preview" data-testid="disclosure-preview" aria-labelledby={`${id}-preview`}>
            <h4 id={`${id}-preview`}>{t("families.disclose.previewTitle")}</h4>
            <div className="fam-message">
              <p dir="auto">{text.trim()}</p>
              {stage === "blurred_face" && (
                <figure className="fam-image-placeholder">
                  <img src={families.facePreviewUrl(kase.report.id, bodyId)} alt={t("families.disclosed.imageAlt")} className="fam-disclosed-image" />
                  <figcaption className="muted small">{t("families.disclose.imagePreviewNote")}</figcaption>
                </figure>
              )}
            </div>
            <ErrorNote error={error} />
            <div className="actions">
              <button type="button" data-testid="send-disclosure" onClick={send}>
                {t("families.disclose.send")}
              </button>
              <button type="button" className="link-button" onClick={() => setPreviewing(false)}>
                {t("families.disclose.edit")}
              </button>
            </div>
          </div>
        )}
      </fieldset>
    </form>
  );
}
