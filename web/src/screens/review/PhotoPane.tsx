import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import type { BodyForReview } from "../../api/types/review.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { ZoomPan } from "../../components/ZoomPan.tsx";
import { RegionCanvas, type ShownRegion, type Tool } from "./RegionCanvas.tsx";

/**
 * The body's photographs, one at a time, zoomable, with the regions of the review drawn over them. Blurred at
 * first like everywhere else; the reviewer reveals a photograph for this view with a reason (forensic reviewers
 * may: the policy's original.reveal), and the reveal is a custody event before a byte is sent.
 */
export function PhotoPane({ body, photo, onPhoto, tool, onTool, regions, points, onPoints, onRect, onClosePolygon }: {
  body: BodyForReview;
  photo: number;
  onPhoto: (i: number) => void;
  tool: Tool;
  onTool: (t: Tool) => void;
  regions: ShownRegion[];
  points: [number, number][];
  onPoints: (p: [number, number][]) => void;
  onRect: (r: { x: number; y: number; w: number; h: number }) => void;
  onClosePolygon: () => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [revealed, setRevealed] = useState<Record<string, string>>({});
  const [reason, setReason] = useState(() => t("review.revealDefault", { ref: body.ref }));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const p = body.photos[photo];

  // Revealed images live as long as this screen.
  useEffect(() => () => Object.values(revealed).forEach((u) => URL.revokeObjectURL(u)), [revealed]);

  if (!p) return <p className="muted">{t("review.noPhotos")}</p>;
  const url = revealed[p.sha256];
  const reveal = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await api.reveal(p.sha256, "preview", reason);
      setRevealed((m) => ({ ...m, [p.sha256]: URL.createObjectURL(r.blob) }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="review-photos">
      <div className="photo-tabs" role="group" aria-label={t("review.photos")}>
        {body.photos.map((ph, i) => (
          <button key={ph.sha256} type="button" aria-pressed={i === photo} className={i === photo ? "primary" : ""} onClick={() => onPhoto(i)}>
            {t("review.photoN", { n: fmt.num(i + 1), role: t(`review.photoRoles.${ph.role}`, { defaultValue: ph.role }) })}
          </button>
        ))}
      </div>
      {url ? (
        <Notice kind="warn">{t("review.revealedNote")}</Notice>
      ) : (
        <form
          className="reveal-inline"
          onSubmit={(e) => {
            e.preventDefault();
            void reveal();
          }}
        >
          <div className="field">
            <label htmlFor="review-reveal-reason">{t("review.revealReason")}</label>
            <input id="review-reveal-reason" dir="auto" value={reason} minLength={4} maxLength={500} required onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="submit" className="primary" disabled={busy || reason.trim().length < 4} data-testid="review-reveal">
            {t("review.reveal")}
          </button>
        </form>
      )}
      <ErrorNote error={error} />
      <div className="draw-tools" role="radiogroup" aria-label={t("review.tools")}>
        {(["rect", "polygon", "pan"] as const).map((k) => (
          <label key={k} className="tool">
            <input type="radio" name="review-tool" value={k} checked={tool === k} onChange={() => onTool(k)} />
            {t(`review.tool.${k}`)}
          </label>
        ))}
        {/* Always there (disabled until a polygon is begun), so the image does not move when the tool changes. */}
        <button type="button" onClick={onClosePolygon} disabled={tool !== "polygon" || points.length < 3} data-testid="finish-polygon">
          {t("review.finishPolygon", { n: fmt.num(points.length), count: points.length })}
        </button>
        <button type="button" onClick={() => onPoints([])} disabled={points.length === 0}>
          {t("review.clearPolygon")}
        </button>
      </div>
      <ZoomPan
        key={p.sha256}
        src={url ?? api.blurredUrl(p.sha256)}
        alt={url ? t("review.altRevealed", { n: fmt.num(photo + 1) }) : t("review.altBlurred", { n: fmt.num(photo + 1) })}
        label={t("review.imageLabel")}
        width={p.width}
        height={p.height}
        overlay={<RegionCanvas tool={tool} regions={regions} points={points} onPoints={onPoints} onRect={onRect} onClose={onClosePolygon} />}
      />
      <p className="muted small">{t("review.drawHelp")}</p>
    </div>
  );
}
