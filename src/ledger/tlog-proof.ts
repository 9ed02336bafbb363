/**
 * Proof files.
 *
 * C2SP tlog-proof@v1 (inclusion of one entry, self-contained):
 *
 *   c2sp.org/tlog-proof@v1\n
 *   [extra <base64>\n]                 optional, unauthenticated
 *   index <decimal>\n
 *   <base64 hash>\n …                  the RFC 9162 audit path, leaf's sibling first
 *   \n
 *   <signed checkpoint, verbatim>
 *
 * Consistency proofs have no C2SP format yet, so this archive uses a small text file of the same style:
 *
 *   dalil.tlog-consistency@v1\n
 *   old <decimal size>\n
 *   new <decimal size>\n
 *   <base64 hash>\n …                  the RFC 9162 §2.1.4 proof, in its order
 *
 * The two checkpoints travel separately; a verifier checks the sizes here equal theirs.
 */
import { Invalid } from "../core/errors.ts";
import { HASH_SIZE } from "./merkle.ts";
import { decodeBase64Strict } from "./note.ts";
import { parseDecimal } from "./checkpoint.ts";
import { say } from "../core/messages.ts";

export const TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1";
export const CONSISTENCY_PROOF_HEADER = "dalil.tlog-consistency@v1";

export interface TlogProof {
  index: number;
  /** Inclusion proof, leaf's sibling first. */
  proof: Buffer[];
  /** The signed checkpoint note, byte for byte. */
  checkpoint: string;
  extra?: Buffer;
}

export interface ConsistencyProofFile {
  oldSize: number;
  newSize: number;
  proof: Buffer[];
}

function hashLine(h: Buffer): string {
  if (h.length !== HASH_SIZE) throw new Invalid(say("proof.hashLength"));
  return `${h.toString("base64")}\n`;
}

function parseHashLine(line: string, what: string): Buffer {
  const h = decodeBase64Strict(line);
  if (!h || h.length !== HASH_SIZE) throw new Invalid(`The ${what} has a line that is not a base64-encoded 32-byte hash: ${JSON.stringify(line.slice(0, 60))}.`);
  return h;
}

export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0) throw new Invalid(say("proof.index", { index: p.index }));
  if (!p.checkpoint.endsWith("\n")) throw new Invalid(say("proof.checkpointNote"));
  let out = `${TLOG_PROOF_HEADER}\n`;
  if (p.extra !== undefined) out += `extra ${p.extra.toString("base64")}\n`;
  out += `index ${p.index}\n`;
  for (const h of p.proof) out += hashLine(h);
  return `${out}\n${p.checkpoint}`;
}

export function parseTlogProof(text: string): TlogProof {
  const what = "tlog-proof";
  let rest = text;
  const nextLine = (): string => {
    const at = rest.indexOf("\n");
    if (at < 0) throw new Invalid(say("proof.endsEarly"));
    const line = rest.slice(0, at);
    rest = rest.slice(at + 1);
    return line;
  };
  if (nextLine() !== TLOG_PROOF_HEADER) throw new Invalid(say("proof.header", { header: TLOG_PROOF_HEADER }));
  let line = nextLine();
  let extra: Buffer | undefined;
  if (line.startsWith("extra ")) {
    const decoded = decodeBase64Strict(line.slice("extra ".length));
    if (!decoded) throw new Invalid(say("proof.extraLine"));
    extra = decoded;
    line = nextLine();
  }
  if (!line.startsWith("index ")) throw new Invalid(say("proof.indexLine"));
  const index = parseDecimal(line.slice("index ".length), "tlog-proof index");
  const proof: Buffer[] = [];
  for (line = nextLine(); line !== ""; line = nextLine()) proof.push(parseHashLine(line, what));
  if (rest.length === 0) throw new Invalid(say("proof.noCheckpoint"));
  return extra === undefined ? { index, proof, checkpoint: rest } : { index, proof, checkpoint: rest, extra };
}

export function formatConsistencyProof(p: ConsistencyProofFile): string {
  for (const [n, what] of [[p.oldSize, "old"], [p.newSize, "new"]] as const) {
    if (!Number.isSafeInteger(n) || n < 0) throw new Invalid(`The ${what} tree size must be a whole number, not ${n}.`);
  }
  return `${CONSISTENCY_PROOF_HEADER}\nold ${p.oldSize}\nnew ${p.newSize}\n${p.proof.map(hashLine).join("")}`;
}

export function parseConsistencyProof(text: string): ConsistencyProofFile {
  if (!text.endsWith("\n")) throw new Invalid(say("consistency.newline"));
  const lines = text.slice(0, -1).split("\n");
  const [header, oldLine = "", newLine = "", ...hashes] = lines;
  if (header !== CONSISTENCY_PROOF_HEADER) throw new Invalid(say("consistency.header", { header: CONSISTENCY_PROOF_HEADER }));
  if (!oldLine.startsWith("old ") || !newLine.startsWith("new ")) throw new Invalid(say("consistency.sizes"));
  return {
    oldSize: parseDecimal(oldLine.slice(4), "old tree size"),
    newSize: parseDecimal(newLine.slice(4), "new tree size"),
    proof: hashes.map((l) => parseHashLine(l, "consistency proof")),
  };
}
