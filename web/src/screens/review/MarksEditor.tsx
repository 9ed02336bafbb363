import { useTranslation } from "react-i18next";
import { useFormat } from "../../app/prefs.tsx";
import { useTerms } from "../catalogue/shared.tsx";
import { reviewApi } from "./api.ts";
import { newMark, type MarkDraft, type ReviewDraft } from "./draft.ts";

/**
 * The marks and clothing a reviewer sees on the body, beside the findings: each mark's type and region from the
 * catalogue's vocabularies (the same a family's report uses), in the reviewer's words. When the review settles
 * (both reviewers agree, or a disagreement is resolved) the marks both recorded and the clothing are written onto
 * the body, marked as coming from review, and the families' ranking reads them.
 */
export function MarksEditor({ draft, onDraft }: { draft: ReviewDraft; onDraft: (d: ReviewDraft) => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const types = useTerms("mark_type", reviewApi.vocabulary);
  const regions = useTerms("body_region", reviewApi.vocabulary);
  const set = (i: number, patch: Partial<MarkDraft>) => onDraft({ ...draft, marks: draft.marks.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  return (
    <fieldset className="card" data-testid="review-marks">
      <legend>{t("review.marks")}</legend>
      <p className="muted small">{t("review.marksHelp")}</p>
      <ol className="plain">
        {draft.marks.map((m, i) => (
          <li key={m.key} className="mark-row">
            <TermSelect id={`mark-type-${m.key}`} label={t("review.markType", { n: fmt.num(i + 1) })} empty={t("review.chooseMarkType")} value={m.type} onChange={(type) => set(i, { type })} vocabulary={types} />
            <TermSelect id={`mark-region-${m.key}`} label={t("review.markRegion", { n: fmt.num(i + 1) })} empty={t("review.regionUnknown")} value={m.region} onChange={(region) => set(i, { region })} vocabulary={regions} />
            <div className="field">
              <label htmlFor={`mark-words-${m.key}`}>{t("review.markWords", { n: fmt.num(i + 1) })}</label>
              <input id={`mark-words-${m.key}`} maxLength={500} dir="auto" value={m.description} onChange={(e) => set(i, { description: e.target.value })} />
            </div>
            <button type="button" onClick={() => onDraft({ ...draft, marks: draft.marks.filter((_, j) => j !== i) })}>
              {t("review.removeMark", { n: fmt.num(i + 1) })}
            </button>
          </li>
        ))}
      </ol>
      <button type="button" onClick={() => onDraft({ ...draft, marks: [...draft.marks, newMark()] })}>
        {t("review.addMark")}
      </button>
      <div className="field">
        <label htmlFor="review-clothing">{t("review.clothing")}</label>
        <textarea id="review-clothing" rows={2} maxLength={4000} dir="auto" value={draft.clothing} onChange={(e) => onDraft({ ...draft, clothing: e.target.value })} />
      </div>
    </fieldset>
  );
}

/** A labelled choice of one current term of a vocabulary, `empty` (the empty value) first. */
function TermSelect({ id, label, empty, value, onChange, vocabulary }: { id: string; label: string; empty: string; value: string; onChange: (code: string) => void; vocabulary: ReturnType<typeof useTerms> }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{empty}</option>
        {vocabulary.terms
          .filter((x) => !x.retired)
          .map((x) => (
            <option key={x.code} value={x.code}>
              {vocabulary.label(x.code)}
            </option>
          ))}
      </select>
    </div>
  );
}

/** The marks and clothing of a signed review, for reading (`bare`: the marks' words alone, for a label). */
export function RecordedMarks({ marks, clothing, bare = false }: { marks: { type: string; region: string | null; description: string }[]; clothing: string | undefined; bare?: boolean }) {
  const { t } = useTranslation();
  const types = useTerms("mark_type", reviewApi.vocabulary);
  const regions = useTerms("body_region", reviewApi.vocabulary);
  if (marks.length === 0 && !clothing) return null;
  const words = marks.map((m) => `${types.label(m.type)} (${m.region ? regions.label(m.region) : t("review.regionUnknown")})${m.description ? `: ${m.description}` : ""}`).join(t("review.sep"));
  if (bare) return <span dir="auto">{words}</span>;
  return (
    <>
      {marks.length > 0 && (
        <p dir="auto">
          {t("review.marks")}: {words}
        </p>
      )}
      {clothing && (
        <p dir="auto">
          {t("review.clothing")}: {clothing}
        </p>
      )}
    </>
  );
}
