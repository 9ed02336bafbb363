/**
 * The gallery's filters as they travel in URLs: the gallery's own address (/gallery?body=identified) and the
 * viewer's, opened from it (/photo/<sha256>?from=gallery&at=12&body=identified), so previous/next walk the same list.
 */
export const BODY_FILTERS = ["none", "any", "unidentified", "possible_match", "identified"] as const;
export const NUMBER_FILTERS = ["none", "read", "unchecked", "checked"] as const;
export const FILTER_KEYS = ["body", "numbers", "source", "intakeFrom", "intakeTo"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export function filtersOf(search: URLSearchParams): Filters {
  const out: Filters = {};
  for (const k of FILTER_KEYS) {
    const v = search.get(k);
    if (v) out[k] = v;
  }
  return out;
}

export function filterQuery(f: Filters): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f[k]) q.set(k, f[k]);
  return q.toString();
}

/** The viewer's address for the photo at `index` of the gallery list under these filters. */
export function photoInGallery(sha256: string, index: number, f: Filters): string {
  const q = filterQuery(f);
  return `/photo/${sha256}?from=gallery&at=${index}${q ? `&${q}` : ""}`;
}

/** The viewer's address for a photo walked within one body (by its reference). */
export function photoInBody(sha256: string, ref: string): string {
  return `/photo/${sha256}?body=${encodeURIComponent(ref)}`;
}
