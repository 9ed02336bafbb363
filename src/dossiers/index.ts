/**
 * The dossiers module: cases with numbered exhibits and frozen versions, redacted copies of photos, evidence
 * packages (BagIt bags) per recipient and their verification. Other modules use only what is exported here.
 */
export { BagWriter, validateBag, encodeBagPath, decodeBagPath, BAGIT_TXT, PAYLOAD_ALGORITHMS } from "./bagit.ts";
export type { BagInfo, BagEntry, BagValidation, BagAlgorithm } from "./bagit.ts";
export { buildPackage, PACKAGE_VERSION } from "./package.ts";
export type { BuildPackageInput, BuildPackageResult, PackageIndex, PackageExhibit } from "./package.ts";
export { verifyPackage } from "./package-verify.ts";
export type { PackageVerification, VerifyPackageOptions } from "./package-verify.ts";
export {
  createDossier,
  listDossiers,
  showDossier,
  listVersions,
  freezeDossier,
  frozenVersion,
  exhibitNumber,
  EXHIBIT_KINDS,
  EVIDENCE_KINDS,
  SNAPSHOT_FORMAT,
  type DossierSummary,
  type DossierVersionView,
  type ExhibitView,
  type ExhibitKind,
  type EvidenceRef,
  type VersionSummary,
} from "./dossiers.ts";
export { addExhibit, withdrawExhibit, reviseReasoning, type AddExhibit } from "./exhibits.ts";
export { markRegion, withdrawRegion, regionsOf, redactedImage, blurredImage, REGION_LABELS, REDACTION_METHOD, type Region, type RegionView, type RedactedImage, type MarkRegion } from "./redaction.ts";
export { buildDossierPackage, enqueueDossierPackage, registerDossierJobs, packageItems, JOB_DOSSIER_PACKAGE, type DossierPackageInput } from "./dossier-package.ts";
export { registerPackageExpiry, removeExpiredPackages } from "./package-download.ts";
export { listPackages } from "./packages-list.ts";
export { safeFileName } from "./file-names.ts";
export { writePackage, CLEARANCES, REDACTION_MANIFEST_VERSION, type Clearance, type PackageCopy, type PackageDossier, type PackageItem } from "./package.ts";
