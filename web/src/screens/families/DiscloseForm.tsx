import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { CaseView, DecisionStatus, DisclosureView, FacePhoto, FacePreviewView, FaceRegion } from "../../api/types/families.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Person } from "../../components/Person.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";

/**
 * A staged disclosure to one family member the caseworker picks: words first, then a blurred crop of the face,
 * never both at once. For the face the caseworker chooses the photo (only those the body's record marks as
 * showing the face; with none the step is not offered) and the square around the face, and the server makes
 * the blurred crop; only that crop, which the caseworker has seen, can be sent (issue 20).
 */
export function DiscloseForm({ kase, bodyId, decision, told, onDone }: { kase: CaseView; bodyId: string; decision: DecisionStatus; told: DisclosureView[]; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const [recipient, setRecipient] = useState<string>(kase.members.length === 1 ? kase.members[0]! : "");
  const id = `disclose-${bodyId}`;
  if (kase.members.length === 0) return <p className="muted small">{t("families.disclose.noMember")}</p>;
  const toThem = told.filter((d) => d.recipientId === recipient && !d.withdrawn);
  return (
    <div className="fam-disclose-wrap">
      {kase.members.length > 1 && (
        <fieldset className="fam-recipient" data-testid="disclose-recipient">
          <legend>{t("families.disclose.recipient")}</legend>
          {kase.members.map((m) => (
            <label key={m} className="fam-radio">
              <input type="radio" name={`${id}-recipient`} value={m} checked={recipient === m} onChange={() => setRecipient(m)} /> <Person id={m} />
            </label>
          ))}
        </fieldset>
      )}
      {recipient ? (
        <StageForm key={recipient} kase={kase} bodyId={bodyId} decision={decision} told={toThem} recipient={recipient} onDone={onDone} />
      ) : (
        <p className="muted small">{t("families.disclose.pickRecipient")}</p>
      )}
    </div>
  );
}

function StageForm({ kase, bodyId, decision, told, recipient, onDone }: { kase: CaseView; bodyId: string; decision: DecisionStatus; told: DisclosureView[]; recipient: string; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const textSent = told.some((d) => d.stage === "text");
  const faceSent = told.some((d) => d.stage === "blurred_face");
  const photosAllowed = kase.report.consent.viewingPhotos?.given === true;
  const stage: "text" | "blurred_face" = textSent ? "blurred_face" : "text";
  const [text, setText] = useState("");
  const [consentNote, setConsentNote] = useState("");
  const [reason, setReason] = useState("");
  const [previewing, setPreviewing] = useState(false);
  const [faces, setFaces] = useState<FacePhoto[] | null>(null);
  const [photo, setPhoto] = useState<string>("");
  const [region, setRegion] = useState<FaceRegion>({ cx: 0.5, cy: 0.5, size: 0.7 });
  const [seen, setSeen] = useState<FacePreviewView | null>(null);
  const { busy, error, run } = useAct(onDone);
  const id = `disclose-${bodyId}`;
  const wantsFace = stage === "blurred_face" && !faceSent && decision !== "excluded" && photosAllowed;

  useEffect(() => {
    if (!wantsFace) return;
    let alive = true;
    void families.facePhotos(bodyId).then(
      (f) => {
        if (!alive) return;
        setFaces(f);
        if (f.length) setPhoto(f[0]!.sha256);
      },
      () => alive && setFaces([]),
    );
    return () => {
      alive = false;
    };
  }, [bodyId, wantsFace]);

  if (faceSent) return <p className="muted small">{t("families.disclose.allSent")}</p>;
  if (stage === "blurred_face" && decision === "excluded") return <p className="muted small">{t("families.disclose.excluded")}</p>;
  if (stage === "blurred_face" && !photosAllowed) return <p className="muted small">{t("families.disclose.needConsent")}</p>;
  if (stage === "blurred_face" && faces === null) return <p className="muted small">…</p>;
  if (stage === "blurred_face" && faces!.length === 0) return <p className="muted small" data-testid="no-face-photo">{t("families.disclose.noFacePhoto")}</p>;

  const preview = (e: FormEvent) => {
    e.preventDefault();
    if (stage === "text") {
      setPreviewing(true);
      return;
    }
    void run(async () => {
      setSeen(await families.previewFace(kase.report.id, { bodyId, photo, region }));
      setPreviewing(true);
    });
  };
  const send = () =>
    void run(async () => {
      await families.disclose(kase.report.id, {
        bodyId, stage, text: text.trim(), consentNote: consentNote.trim(), reason: reason.trim(), recipientId: recipient, ...(seen ? { preview: seen.id } : {}),
      });
      setPreviewing(false);
      setSeen(null);
    });
  const back = () => {
    setPreviewing(false);
    setSeen(null);
  };
  return (
    <form className="fam-disclose" onSubmit={preview} data-testid="disclose-form" data-stage={stage}>
      <fieldset disabled={busy}>
        <legend>{t(`families.disclose.stage_${stage}`)}</legend>
        <p className="muted small">
          {t(`families.disclose.help_${stage}`)} {t("families.disclose.to")} <Person id={recipient} />
        </p>
        {stage === "blurred_face" && !previewing && <FaceChooser bodyId={bodyId} faces={faces!} photo={photo} setPhoto={setPhoto} region={region} setRegion={setRegion} />}
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
          <>
            <ErrorNote error={error} />
            <button type="submit" data-testid="preview-disclosure" disabled={!text.trim() || !consentNote.trim() || !reason.trim() || (stage === "blurred_face" && !photo)}>
              {t("families.disclose.preview")}
            </button>
          </>
        )}
        {previewing && (
          <div className="fam-preview" data-testid="disclosure-preview" aria-labelledby={`${id}-preview`}>
            <h4 id={`${id}-preview`}>{t("families.disclose.previewTitle")}</h4>
            <div className="fam-message">
              <p dir="auto">{text.trim()}</p>
              {stage === "blurred_face" && seen && (
                <figure className="fam-image-placeholder">
                  <img src={families.facePreviewImageUrl(seen.id)} alt={t("families.disclosed.imageAlt")} className="fam-disclosed-image" data-sha256={seen.sha256} />
                  <figcaption className="muted small">{t("families.disclose.imagePreviewNote")}</figcaption>
                </figure>
              )}
            </div>
            <ErrorNote error={error} />
            <div className="actions">
              <button type="button" data-testid="send-disclosure" onClick={send}>
                {t("families.disclose.send")}
              </button>
              <button type="button" className="link-button" onClick={back}>
                {t(stage === "blurred_face" ? "families.disclose.editFace" : "families.disclose.edit")}
              </button>
            </div>
          </div>
        )}
      </fieldset>
    </form>
  );
}

/**
 * The photo (of those marked as showing the face) and the square around the face, drawn over the photo's blurred
 * rendition: the square's centre across and down and its size, each a slider. The horizontal slider runs left to
 * right in both languages, as the photo does.
 */
function FaceChooser({ bodyId, faces, photo, setPhoto, region, setRegion }: { bodyId: string; faces: FacePhoto[]; photo: string; setPhoto: (s: string) => void; region: FaceRegion; setRegion: (r: FaceRegion) => void }) {
  const { t } = useTranslation();
  const [dims, setDims] = useState<{ w: number; h: number } | null>(null);
  const id = `face-${bodyId}`;
  const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;
  let box: { left: string; top: string; width: string; height: string } | null = null;
  if (dims) {
    const side = Math.min(dims.w, dims.h) * region.size;
    const left = Math.min(Math.max(0, region.cx * dims.w - side / 2), dims.w - side);
    const top = Math.min(Math.max(0, region.cy * dims.h - side / 2), dims.h - side);
    box = { left: pct(left / dims.w), top: pct(top / dims.h), width: pct(side / dims.w), height: pct(side / dims.h) };
  }
  const slider = (key: keyof FaceRegion, min: number, label: string) => (
    <div className="field fam-slider">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        type="range"
        dir="ltr"
        min={min}
        max={1}
        step={0.01}
        value={region[key]}
        data-testid={`face-${key}`}
        onChange={(e) => setRegion({ ...region, [key]: Number(e.target.value) })}
      />
    </div>
  );
  return (
    <div className="fam-face-chooser" data-testid="face-chooser">
      <p className="muted small">{t("families.disclose.faceHelp")}</p>
      {faces.length > 1 && (
        <fieldset>
          <legend>{t("families.disclose.facePhoto")}</legend>
          {faces.map((f, i) => (
            <label key={f.sha256} className="fam-radio">
              <input type="radio" name={`${id}-photo`} checked={photo === f.sha256} onChange={() => (setDims(null), setPhoto(f.sha256))} /> {t("families.disclose.facePhotoN", { n: i + 1 })}
            </label>
          ))}
        </fieldset>
      )}
      <div className="fam-face-frame" dir="ltr">
        <img src={families.photoBlurredUrl(photo)} alt={t("families.disclose.facePhotoAlt")} onLoad={(e) => setDims({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })} />
        {box && <div className="fam-face-box" style={box} aria-hidden="true" />}
      </div>
      {slider("cx", 0, t("families.disclose.faceAcross"))}
      {slider("cy", 0, t("families.disclose.faceDown"))}
      {slider("size", 0.05, t("families.disclose.faceSize"))}
    </div>
  );
}
