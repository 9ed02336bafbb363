/**
 * The body of a C2SP tlog-witness@v1.0.0 add-checkpoint request, parsed strictly:
 *
 *   old <decimal size, no leading zeros>\n
 *   <base64 hash>\n …                   at most 63 consistency proof lines
 *   \n
 *   <signed checkpoint note>
 *
 * Pure: bytes in, the parts or a reason out. A reason here is a 400.
 */
import { HASH_SIZE, decodeBase64Strict } from "../ledger/index.ts";

export const MAX_PROOF_LINES = 63;

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  /** The signed checkpoint, byte for byte as sent (decoded as UTF-8). */
  note: string;
  /** Its origin line, read before any signature is checked (to choose the keys). */
  origin: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parseAddCheckpoint(body: Buffer): Parsed<AddCheckpointRequest> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { ok: false, reason: "the request body is not valid UTF-8" };
  }
  const split = text.indexOf("\n\n");
  if (split < 0) return { ok: false, reason: 'the request needs an "old <size>" line, proof lines, a blank line and the signed checkpoint' };
  const [first = "", ...hashes] = text.slice(0, split).split("\n");
  const note = text.slice(split + 2);
  const m = /^old (0|[1-9][0-9]*)$/.exec(first);
  if (!m) return { ok: false, reason: 'the first line must be "old <size>" in decimal without leading zeros' };
  const oldSize = Number(m[1]);
  if (!Number.isSafeInteger(oldSize)) return { ok: false, reason: "the old size is larger than this witness supports (2^53 - 1)" };
  if (hashes.length > MAX_PROOF_LINES) return { ok: false, reason: `a consistency proof has at most ${MAX_PROOF_LINES} lines` };
  const proof: Buffer[] = [];
  for (const line of hashes) {
    const h = decodeBase64Strict(line);
    if (!h || h.length !== HASH_SIZE) return { ok: false, reason: `a proof line is not a base64 32-byte hash: ${JSON.stringify(line.slice(0, 60))}` };
    proof.push(h);
  }
  const originEnd = note.indexOf("\n");
  if (originEnd <= 0) return { ok: false, reason: "the checkpoint has no origin line" };
  return { ok: true, value: { oldSize, proof, note, origin: note.slice(0, originEnd) } };
}
