/**
 * C2SP tlog-checkpoint@v1.0.0: the signed note text
 *
 *   <origin>\n<tree size, decimal, no leading zeros>\n<root hash, standard padded base64>\n[<extension line>\n]*
 *
 * signed through note.ts. The origin names the log (a scheme-less URL) and should equal the key name.
 */
import { Invalid } from "../core/errors.ts";
import { HASH_SIZE } from "./merkle.ts";
import { decodeBase64Strict, openNote, signNote, type NoteSigner, type NoteVerifier, type OpenedNote } from "./note.ts";
import { say } from "../core/messages.ts";

export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Buffer;
  /** Opaque extra lines; not recommended (monitors cannot audit them). */
  extensions: string[];
}

const DECIMAL_RE = /^(?:0|[1-9][0-9]*)$/;

/** Parses a decimal size/index with no sign, no leading zeros, at most 2^53 - 1. */
export function parseDecimal(text: string, what: string): number {
  if (!DECIMAL_RE.test(text)) throw new Invalid(`The ${what} ${JSON.stringify(text.slice(0, 40))} is not a decimal number without leading zeros.`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Invalid(`The ${what} ${text} is larger than this software supports (2^53 - 1).`);
  return n;
}

export function formatCheckpoint(cp: Checkpoint): string {
  if (cp.origin.length === 0 || cp.origin.includes("\n")) throw new Invalid(say("checkpoint.origin"));
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw new Invalid(say("checkpoint.size", { size: cp.size }));
  if (cp.rootHash.length !== HASH_SIZE) throw new Invalid(say("checkpoint.rootLength"));
  for (const line of cp.extensions) {
    if (line.length === 0 || line.includes("\n")) throw new Invalid(say("checkpoint.extensionLines"));
  }
  return [cp.origin, String(cp.size), cp.rootHash.toString("base64"), ...cp.extensions].map((l) => `${l}\n`).join("");
}

/** Parses the (unsigned) checkpoint text. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw new Invalid(say("checkpoint.newline"));
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) throw new Invalid(say("checkpoint.threeLines"));
  const [origin = "", sizeText = "", rootText = "", ...extensions] = lines;
  if (origin.length === 0) throw new Invalid(say("checkpoint.originEmpty"));
  const size = parseDecimal(sizeText, "checkpoint tree size");
  const rootHash = decodeBase64Strict(rootText);
  if (!rootHash || rootHash.length !== HASH_SIZE) throw new Invalid(say("checkpoint.rootNotBase64"));
  if (extensions.some((l) => l.length === 0)) throw new Invalid(say("checkpoint.extensionEmpty"));
  return { origin, size, rootHash, extensions };
}

export function signCheckpoint(cp: Checkpoint, signers: readonly NoteSigner[]): string {
  return signNote(formatCheckpoint(cp), signers);
}

/** Opens a signed checkpoint: signatures as in openNote, then the text parsed as a checkpoint. */
export function openCheckpoint(signed: string | Uint8Array, verifiers: readonly NoteVerifier[]): { checkpoint: Checkpoint; note: OpenedNote } {
  const note = openNote(signed, verifiers);
  return { checkpoint: parseCheckpoint(note.text), note };
}
