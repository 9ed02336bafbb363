import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CAUSE_INDICATORS, CONFIDENCES, type Confidence, type Region, type Term } from "../../api/types/review.ts";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { describeRegion, newFinding, termLabel, type ReviewDraft } from "./draft.ts";

/**
 * The finding form: each finding a code from the catalogue's finding vocabulary, a confidence, its regions
 * (drawn on the photo, or typed here as numbers: the keyboard's way to draw), and a note; then the
 * cause-of-death indicators and the review's notes. One finding is "active": regions drawn go to it.
 */
export function FindingsEditor({ draft, onDraft, terms, active, onActive, photo, photoCount }: {
  draft: ReviewDraft;
  onDraft: (d: ReviewDraft) => void;
  terms: Term[] | null;
  active: number;
  onActive: (i: number) => void;
  photo: string | null;
  photoCount: (sha: string) => number;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const pct = (v: number) => fmt.percent(v);
  const set = (i: number, patch: Partial<ReviewDraft["findings"][number]>) =>
    onDraft({ ...draft, findings: draft.findings.map((f, j) => (j === i ? { ...f, ...patch } : f)) });
  const current = (terms ?? []).filter((x) => !x.retired);

  return (
    <div className="findings-editor">
      <fieldset className="card">
        <legend>{t("review.findings")}</legend>
        <ol className="plain findings-list">
          {draft.findings.map((f, i) => (
            <li key={f.key} className={`finding c${i % 6}${i === active ? " active" : ""}`} data-testid={`finding-${i}`}>
              <div className="finding-head">
                <label className="tool">
                  <input type="radio" name="active-finding" checked={i === active} onChange={() => onActive(i)} />
                  {t("review.activeFinding", { n: fmt.num(i + 1) })}
                </label>
                {draft.findings.length > 1 && (
                  <button
                    type="button"
                    onClick={() => {
                      onDraft({ ...draft, findings: draft.findings.filter((_, j) => j !== i) });
                      onActive(0);
                    }}
                  >
                    {t("review.removeFinding")}
                  </button>
                )}
              </div>
              <div className="field">
                <label htmlFor={`finding-code-${f.key}`}>{t("review.findingCode")}</label>
                <select id={`finding-code-${f.key}`} value={f.code} required onChange={(e) => set(i, { code: e.target.value })}>
                  <option value="">{t("review.chooseFinding")}</option>
                  {current.map((term) => (
                    <option key={term.code} value={term.code}>
                      {lang === "ar" ? term.labelAr : term.labelEn}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor={`finding-conf-${f.key}`}>{t("review.confidence")}</label>
                <select id={`finding-conf-${f.key}`} value={f.confidence} onChange={(e) => set(i, { confidence: e.target.value as Confidence })}>
                  {CONFIDENCES.map((c) => (
                    <option key={c} value={c}>
                      {t(`review.confidences.${c}`)}
                    </option>
                  ))}
                </select>
              </div>
              <p className="small">{t("review.regionsOf", { n: fmt.num(f.regions.length) })}</p>
              {f.regions.length > 0 && (
                <ul className="plain regions" data-testid={`regions-${i}`}>
                  {f.regions.map((r, j) => (
                    <li key={j}>
                      <span>
                        {t(`review.shapes.${r.shape}`)}{t("review.sep")}{t("review.onPhoto", { n: fmt.num(photoCount(r.photo)) })}{t("review.sep")}<span dir="ltr">{describeRegion(r, pct)}</span>
                      </span>
                      <button type="button" onClick={() => set(i, { regions: f.regions.filter((_, k) => k !== j) })} aria-label={t("review.removeRegionN", { n: fmt.num(j + 1), finding: termLabel(terms, f.code, lang) })}>
                        {t("review.remove")}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <div className="field">
                <label htmlFor={`finding-note-${f.key}`}>{t("review.findingNote")}</label>
                <textarea id={`finding-note-${f.key}`} rows={2} maxLength={4000} dir="auto" value={f.note} onChange={(e) => set(i, { note: e.target.value })} />
              </div>
            </li>
          ))}
        </ol>
        <button
          type="button"
          onClick={() => {
            onDraft({ ...draft, findings: [...draft.findings, newFinding()] });
            onActive(draft.findings.length);
          }}
        >
          {t("review.addFinding")}
        </button>
      </fieldset>
      {photo && <NumericRegion photo={photo} onAdd={(r) => set(active, { regions: [...(draft.findings[active]?.regions ?? []), r] })} findingN={active + 1} />}
      <fieldset className="card">
        <legend>{t("review.causes")}</legend>
        <p className="muted small">{t("review.causesHelp")}</p>
        <div className="causes">
          {CAUSE_INDICATORS.map((c) => {
            const v = draft.causes[c];
            return (
              <div key={c} className="cause">
                <label className="tool">
                  <input type="checkbox" checked={v !== undefined} onChange={(e) => onDraft({ ...draft, causes: { ...draft.causes, [c]: e.target.checked ? "possible" : undefined } })} />
                  {t(`review.causeCodes.${c}`)}
                </label>
                {v !== undefined && (
                  <select aria-label={t("review.causeConfidence", { cause: t(`review.causeCodes.${c}`) })} value={v} onChange={(e) => onDraft({ ...draft, causes: { ...draft.causes, [c]: e.target.value as Confidence } })}>
                    {CONFIDENCES.map((k) => (
                      <option key={k} value={k}>
                        {t(`review.confidences.${k}`)}
                      </option>
                    ))}
                  </select>
                )}
              </div>
            );
          })}
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor="review-notes">{t("review.notes")}</label>
        <textarea id="review-notes" rows={3} maxLength={20000} dir="auto" value={draft.notes} onChange={(e) => onDraft({ ...draft, notes: e.target.value })} />
      </div>
    </div>
  );
}

/** A rectangle typed as numbers (per cent of the image), for those who do not draw with a pointer. */
function NumericRegion({ photo, onAdd, findingN }: { photo: string; onAdd: (r: Region) => void; findingN: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [v, setV] = useState({ x: "", y: "", w: "", h: "" });
  const n = (s: string) => Number(s.replace(",", ".")) / 100;
  const [x, y, w, h] = [n(v.x), n(v.y), n(v.w), n(v.h)];
  const ok = [v.x, v.y, v.w, v.h].every((s) => s.trim() !== "") && [x, y, w, h].every((k) => Number.isFinite(k) && k >= 0 && k <= 1) && w > 0 && h > 0 && x + w <= 1 && y + h <= 1;
  return (
    <fieldset className="card numeric-region">
      <legend>{t("review.numericTitle", { n: fmt.num(findingN) })}</legend>
      <p className="muted small">{t("review.numericHelp")}</p>
      <div className="numeric-fields">
        {(["x", "y", "w", "h"] as const).map((k) => (
          <div className="field" key={k}>
            <label htmlFor={`num-${k}`}>{t(`review.numeric.${k}`)}</label>
            <input id={`num-${k}`} inputMode="decimal" dir="ltr" size={5} value={v[k]} onChange={(e) => setV({ ...v, [k]: e.target.value })} />
          </div>
        ))}
      </div>
      <button
        type="button"
        disabled={!ok}
        onClick={() => {
          const r4 = (k: number) => Math.round(k * 10000) / 10000;
          onAdd({ photo, shape: "rect", x: r4(x), y: r4(y), w: r4(w), h: r4(h) });
          setV({ x: "", y: "", w: "", h: "" });
        }}
      >
        {t("review.numericAdd")}
      </button>
    </fieldset>
  );
}
