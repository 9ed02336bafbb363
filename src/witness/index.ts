/** The witness: a separate process that cosigns an archive's checkpoints only when they are consistent. */
export { Witness, initWitness, witnessPaths, type WitnessAnswer, type CosignedRow, type RefusedRow } from "./witness.ts";
export { witnessServer } from "./server.ts";
