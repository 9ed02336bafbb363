export { writeDemoCard, DEFAULT_SEED, DEFAULT_START_DATE, DEFAULT_FILES_PER_FOLDER, MAX_BODIES } from "./card.ts";
export type { DemoCardOptions } from "./card.ts";
export type {
  DemoCardTruth,
  TruthBody,
  TruthPhoto,
  TruthFault,
  TruthCamera,
  DigitForm,
  PhotoKind,
  FaultExpectation,
  TruthAnomaly,
} from "./truth.ts";
export { ANOMALIES } from "./anomalies.ts";
export { toArabicIndic } from "./paper-card.ts";
