/**
 * The standalone check a stranger runs: does this tlog-proof show that these exact leaf bytes are in the log
 * whose key they trust? No archive, no database, no network: only the proof text, the leaf bytes and keys.
 */
import { DalilError } from "../core/errors.ts";
import { openCheckpoint } from "./checkpoint.ts";
import { leafHash, verifyInclusion } from "./merkle.ts";
import { newVerifier, type NoteVerifier } from "./note.ts";
import { parseTlogProof } from "./tlog-proof.ts";

export type ProofCheckResult =
  | { ok: true; index: number; size: number; origin: string; rootHash: string; signedBy: string[] }
  | { ok: false; reason: string };

export interface ProofBundle {
  proofText: string;
  leafBytes: Uint8Array;
  verifierKeys: string[];
  /** If given, the checkpoint's origin must equal it (the log the caller means to trust). */
  origin?: string;
}

function reasonOf(e: unknown): string {
  if (e instanceof DalilError) return e.message;
  throw e;
}

export function checkProofBundle(bundle: ProofBundle): ProofCheckResult {
  if (bundle.verifierKeys.length === 0) return { ok: false, reason: "No verifier key was given, so no signature can be trusted." };
  let verifiers: NoteVerifier[];
  try {
    verifiers = bundle.verifierKeys.map((k) => newVerifier(k));
  } catch (e) {
    return { ok: false, reason: reasonOf(e) };
  }
  try {
    const proof = parseTlogProof(bundle.proofText);
    const { checkpoint, note } = openCheckpoint(proof.checkpoint, verifiers);
    if (bundle.origin !== undefined && checkpoint.origin !== bundle.origin) {
      return { ok: false, reason: `The checkpoint is for the log ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(bundle.origin)}.` };
    }
    if (proof.index >= checkpoint.size) {
      return { ok: false, reason: `The proof is for entry ${proof.index}, but the checkpoint's tree has only ${checkpoint.size} entries.` };
    }
    if (!verifyInclusion(leafHash(bundle.leafBytes), proof.index, checkpoint.size, proof.proof, checkpoint.rootHash)) {
      return {
        ok: false,
        reason: `These bytes are not entry ${proof.index} of the signed tree of ${checkpoint.size} entries: either the bytes differ from the logged entry or the proof hashes were altered.`,
      };
    }
    return {
      ok: true,
      index: proof.index,
      size: checkpoint.size,
      origin: checkpoint.origin,
      rootHash: checkpoint.rootHash.toString("base64"),
      signedBy: note.verified.map((s) => s.name),
    };
  } catch (e) {
    return { ok: false, reason: reasonOf(e) };
  }
}
