import type { z } from "zod";
import type * as server from "../../../../src/dossiers/contracts.ts";
/** Responses of the dossiers routes (src/dossiers/dossiers.ts, exhibits.ts, dossier-package.ts). */
export const EXHIBIT_KINDS = ["body", "photo", "review", "facility", "unit", "person"] as const;
export type ExhibitKind = (typeof EXHIBIT_KINDS)[number];
export const CLEARANCES = ["original", "redacted", "blurred"] as const;
export type Clearance = (typeof CLEARANCES)[number];

export type DossierSummary = server.DossierSummary;

export type ExhibitView = server.ExhibitView;

export type DossierView = server.GetDossiersByIdAnswer;

export type VersionSummary = server.VersionSummary;
export type PackageList = server.PackageList;

/** POST /api/dossiers/:id/packages: the use case's input without the dossier the path gives (decision 0021). */
export type NewPackage = Omit<z.input<typeof server.EnqueuePackageInput>, "dossierId">;
