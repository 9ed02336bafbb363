/**
 * The ledger module: the custody log (events, their openings, the Merkle tree and signed checkpoints), proofs
 * for one original, and the log checked against itself. Other modules import this file only.
 */
export { custody, parseLeaf, type CustodyEvent, type EventObject, type EventType } from "./events.ts";
export { isCommitment, openEvent, openingsOf, opens, secret, type StoredOpening } from "./openings.ts";
export { CustodyLog, type AppendedEvent } from "./log.ts";
export { LogTree, loadOrCreateLogKey, newOrigin } from "./tree.ts";
export { EMPTY_ROOT, HASH_SIZE, MerkleAppender, inclusionProofs, leafHash, storedHashCount, storedHashIndex, verifyConsistency } from "./merkle.ts";
export { decodeBase64Strict, newVerifier } from "./note.ts";
export { openCheckpoint, type Checkpoint } from "./checkpoint.ts";
export { checkProofBundle } from "./proof-check.ts";
export { proveOriginal } from "./proofs.ts";
export { decodeEntryBundle, parseTilePath, tilePath, tilesBetween, tilesForSize, TILE_WIDTH, type TileCoord } from "./tiles.ts";
export { assertTimestampCovers } from "./timestamp.ts";
export { formatTlogProof, parseConsistencyProof, parseTlogProof } from "./tlog-proof.ts";
export { restoreLog } from "./restore.ts";
export { verifyLedger, type Finding, type LedgerReport } from "./verify.ts";
export { consistencyProof, cosignLatest, entryTileOpenings, publicWitnessStates, latestCheckpoint, logTile, logTiles, timestampLatestCheckpoint, verifierKey, witnessStates } from "./reads.ts";
export { WitnessClient, WitnessPolicyWatch, assertPolicyForLog, loadWitnessPolicy, witnessPolicyFile, type WitnessOutcome, type WitnessPolicySource, type WitnessState } from "./witness-client.ts";
export { checkQuorum, describeQuorum, formatWitnessPolicy, parseWitnessPolicy, quorumMet, type WitnessPolicy } from "./witness-policy.ts";
export { cosignerVkey, generateCosigner, parseCosignerKey, type Cosigner } from "./cosignature.ts";
export { addWitness, removeWitness, setWitnessQuorum, showWitnessPolicy } from "./witness-admin.ts";
export type { WitnessPolicyView } from "./contracts.ts";
