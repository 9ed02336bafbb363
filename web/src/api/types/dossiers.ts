/** Responses of the dossiers routes (src/dossiers/dossiers.ts, exhibits.ts, dossier-package.ts). */
export const EXHIBIT_KINDS = ["body", "photo", "review", "facility", "unit", "person"] as const;
export type ExhibitKind = (typeof EXHIBIT_KINDS)[number];
export const CLEARANCES = ["original", "redacted", "blurred"] as const;
export type Clearance = (typeof CLEARANCES)[number];

export interface DossierSummary {
  id: string;
  name: string;
  description: string | null;
  frozenVersions: number;
  draftChanged: boolean;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export interface ExhibitView {
  number: string;
  kind: ExhibitKind;
  ref: string;
  reasoning: string;
  status: "active" | "withdrawn";
  addedAt: string;
  addedBy: string;
  withdrawn: { at: string; by: string; reason: string } | null;
  photos?: string[];
}

export interface DossierView {
  dossier: { id: string; name: string; description: string | null };
  version: number;
  frozen: { at: string; by: string; note: string | null; sha256: string; eventSeq: number } | null;
  exhibits: ExhibitView[];
  summary: DossierSummary;
  /** Per exhibit ref: a body's reference, an entity's name, a review's body; absent where the reader may not see it. */
  labels?: Record<string, { ar: string; en: string }>;
}

export interface VersionSummary {
  version: number;
  frozenAt: string;
  frozenBy: string;
  note: string | null;
  sha256: string;
  eventSeq: number;
  exhibits: number;
  withdrawn: number;
}
