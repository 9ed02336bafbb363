/** What GET /api/search answers (src/catalogue/search.ts). */
export const FACETS = ["branch", "hospital", "period", "finding", "review", "identification", "sex"] as const;
export type FacetName = (typeof FACETS)[number];

export interface SearchHit {
  id: string;
  ref: string;
  externalRef: string | null;
  detaineeNo: string | null;
  branchNo: string | null;
  examinerNo: string | null;
  hospital: string | null;
  photoDate: string | null;
  deathDate: string | null;
  sex: string | null;
  ageMin: number | null;
  ageMax: number | null;
  nameAr: string | null;
  nameLat: string | null;
  identificationStatus: string;
  reviewStatus: string;
  photos: number;
  /** The first photo's SHA-256 (its blurred rendition is the thumbnail), or null. */
  coverPhoto: string | null;
}

export interface FacetBucket {
  /** null: the field is unknown on these records (filtered with "unknown"). */
  value: string | null;
  count: number;
  labelAr?: string;
  labelEn?: string;
}

export interface SearchResult {
  total: number;
  items: SearchHit[];
  next: string | null;
  facets: Partial<Record<FacetName, FacetBucket[]>>;
  /** The words the query was reduced to (what was matched). */
  tokens: string[];
}
