export { BagWriter, validateBag, encodeBagPath, decodeBagPath, BAGIT_TXT, PAYLOAD_ALGORITHMS } from "./bagit.ts";
export type { BagInfo, BagEntry, BagValidation, BagAlgorithm } from "./bagit.ts";
export { buildPackage, PACKAGE_VERSION } from "./package.ts";
export type { BuildPackageInput, BuildPackageResult, PackageIndex, PackageExhibit } from "./package.ts";
export { verifyPackage } from "./package-verify.ts";
export type { PackageVerification, VerifyPackageOptions } from "./package-verify.ts";
