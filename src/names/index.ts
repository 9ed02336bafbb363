/**
 * Arabic personal names, in both scripts: reading a chain into slots, comparing two names, and keys that let
 * spellings in either script meet. Pure functions over strings (no database, no context): the families module
 * matches reports with them, the catalogue's search finds a name written in the other script, `dalil names`
 * compares two. See docs/arabic-names.md.
 */
export {
  parseNameChain,
  compareNames,
  formatComparison,
  nameScore,
  nameSimilarity,
  prepareName,
  blockingKeys,
  crossScriptKey,
  nameSearchKeys,
  nameKeyTokens,
  NAME_KEY_PREFIX,
  namePartsFound,
  namePartsMatcher,
  nameParts,
  type NamePartsMatcher,
  jaroWinkler,
  resetNameCaches,
  NAME_THRESHOLDS,
  type NameSlots,
  type NameScript,
  type NameDecision,
  type NameComparison,
  type NameSimilarity,
  type PreparedName,
  type Slot,
} from "./names.ts";
