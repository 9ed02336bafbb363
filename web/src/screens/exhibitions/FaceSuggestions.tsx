import { useTranslation } from "react-i18next";
import { useFormat } from "../../app/prefs.tsx";
import type { ExhibitionSuggestion } from "../../api/types/exhibitions.ts";

/**
 * Faces suggested by the detector on one photograph (decision 0029): dashed outlines over the image and a list
 * to accept (it becomes a faces region) or discard each. A suggestion hides nothing until a person accepts it.
 */
export function SuggestionBoxes({ suggestions, natural }: { suggestions: readonly ExhibitionSuggestion[]; natural: { w: number; h: number } | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (!natural) return null;
  return (
    <>
      {suggestions.map((s, i) => (
        <span
          key={s.id}
          className="exh-suggestion"
          data-testid="face-suggestion-box"
          title={t("exhibitions.page.suggestion", { n: fmt.num(i + 1), score: fmt.num(Math.round(s.score * 100)), angle: fmt.num(s.angle) })}
          style={{ left: `${(s.x / natural.w) * 100}%`, top: `${(s.y / natural.h) * 100}%`, width: `${(s.w / natural.w) * 100}%`, height: `${(s.h / natural.h) * 100}%` }}
        >
          <span className="exh-suggestion-n">{fmt.num(i + 1)}</span>
        </span>
      ))}
    </>
  );
}

export function SuggestionList({ suggestions, canEdit, busy, asked, onAccept, onDiscard }: { suggestions: readonly ExhibitionSuggestion[]; canEdit: boolean; busy: boolean; asked: boolean; onAccept: (id: string) => void; onDiscard: (id: string) => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (suggestions.length === 0) return asked ? <p className="small muted" role="status">{t("exhibitions.page.noSuggestions")}</p> : null;
  return (
    <section className="exh-suggestions" aria-label={t("exhibitions.page.suggestionsTitle")} data-testid="face-suggestions">
      <h3>{t("exhibitions.page.suggestionsTitle")}</h3>
      <p className="small">{t("exhibitions.page.suggestionsHelp")}</p>
      <ul className="small">
        {suggestions.map((s, i) => (
          <li key={s.id}>
            {t("exhibitions.page.suggestion", { n: fmt.num(i + 1), score: fmt.num(Math.round(s.score * 100)), angle: fmt.num(s.angle) })}{" "}
            <span dir="ltr">{s.x},{s.y} {s.w}×{s.h}</span>
            {canEdit && (
              <>
                {" "}
                <button type="button" className="link" disabled={busy} onClick={() => onAccept(s.id)}>{t("exhibitions.page.acceptSuggestion")}</button>{" "}
                <button type="button" className="link" disabled={busy} onClick={() => onDiscard(s.id)}>{t("exhibitions.page.discardSuggestion")}</button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
