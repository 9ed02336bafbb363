import { useState } from "react";
import { useTranslation } from "react-i18next";
import { FACETS, type FacetBucket, type FacetName } from "../../api/types/search.ts";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { facetValueLabel } from "./labels.ts";

/**
 * The facets beside the results: each value with how many results it would give (each facet's counts apply
 * every other choice), as checkboxes. A chosen value stays listed even when no result has it now, so it can
 * be unchosen.
 */
const SHOWN = 8;
export const UNKNOWN = "unknown";

interface Props {
  facets: Partial<Record<FacetName, FacetBucket[]>>;
  chosen: Record<FacetName, string[]>;
  onToggle: (facet: FacetName, value: string) => void;
}

export function Facets({ facets, chosen, onToggle }: Props) {
  const { t } = useTranslation();
  return (
    <div className="search-facets" data-testid="search-facets">
      {FACETS.map((f) => (
        <Facet key={f} facet={f} buckets={facets[f] ?? []} chosen={chosen[f]} onToggle={(v) => onToggle(f, v)} />
      ))}
      <p className="muted small">{t("search.facetsHelp")}</p>
    </div>
  );
}

function Facet({ facet, buckets, chosen, onToggle }: { facet: FacetName; buckets: FacetBucket[]; chosen: string[]; onToggle: (v: string) => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const [all, setAll] = useState(false);
  const listed = new Set(buckets.map((b) => b.value ?? UNKNOWN));
  const rows: FacetBucket[] = [...buckets, ...chosen.filter((v) => !listed.has(v)).map((v) => ({ value: v === UNKNOWN ? null : v, count: 0 }))];
  // Months read best in time order; the rest by how many results they give.
  if (facet === "period") rows.sort((a, b) => (a.value ?? "~").localeCompare(b.value ?? "~"));
  const shown = all ? rows : rows.filter((b, i) => i < SHOWN || chosen.includes(b.value ?? UNKNOWN));
  if (rows.length === 0) return null;
  return (
    <fieldset className="search-facet" data-facet={facet}>
      <legend>{t(`search.facets.${facet}`)}</legend>
      <ul>
        {shown.map((b) => {
          const value = b.value ?? UNKNOWN;
          const id = `facet-${facet}-${value}`;
          return (
            <li key={value}>
              <input type="checkbox" id={id} checked={chosen.includes(value)} onChange={() => onToggle(value)} />
              <label htmlFor={id}>
                <span dir="auto">{facetValueLabel(facet, b, lang, fmt.locale, t)}</span> <span className="facet-count">{fmt.num(b.count)}</span>
              </label>
            </li>
          );
        })}
      </ul>
      {rows.length > SHOWN && (
        <button type="button" className="link-button" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? t("search.fewer") : t("search.more", { n: fmt.num(rows.length) })}
        </button>
      )}
    </fieldset>
  );
}
