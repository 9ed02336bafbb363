import type { TFunction } from "i18next";
import type { FacetName } from "../../api/types/search.ts";

/** Words for facet values and months, shared by the search and statistics screens. */
export interface Labelled {
  value: string | null;
  labelAr?: string;
  labelEn?: string;
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();

/** "2013-05" as "May 2013" / "أيار ٢٠١٣" in the reader's locale; anything else as written. */
export function formatMonth(month: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return month;
  let f = monthFormats.get(locale);
  if (!f) monthFormats.set(locale, (f = new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", timeZone: "UTC" })));
  return f.format(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

/** A vocabulary term's label in the reader's language, or its code when the archive has no term for it. */
export function termLabel(b: Labelled, lang: string): string {
  return (lang === "ar" ? b.labelAr : b.labelEn) ?? b.value ?? "";
}

export function facetValueLabel(facet: FacetName, b: Labelled, lang: string, locale: string, t: TFunction): string {
  if (b.value === null) return t("search.unknown");
  switch (facet) {
    case "branch":
      return b.labelAr || b.labelEn ? termLabel(b, lang) : t("search.branchNo", { n: b.value });
    case "hospital":
    case "finding":
      return termLabel(b, lang);
    case "period":
      return formatMonth(b.value, locale);
    default:
      return t(`search.values.${facet}.${b.value}`, { defaultValue: b.value });
  }
}

const yearFormats = new Map<string, Intl.DateTimeFormat>();

/** The year of "2013-05" in the reader's digits. */
export function formatYear(month: string, locale: string): string {
  let f = yearFormats.get(locale);
  if (!f) yearFormats.set(locale, (f = new Intl.DateTimeFormat(locale, { year: "numeric", timeZone: "UTC" })));
  return f.format(Date.UTC(Number(month.slice(0, 4)), 0, 1));
}
