import type { Ctx } from "../app/context.ts";
import type { Tx } from "../db/database.ts";
import { IntegrityError } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { openCheckpoint } from "./checkpoint.ts";
import { MerkleAppender } from "./merkle.ts";
import { newVerifier } from "./note.ts";
import type { StoredOpening } from "./openings.ts";

/**
 * The custody log put back from a copy kept elsewhere (a mirror): the leaves byte for byte, their openings, and
 * the signed checkpoints the copy held, each checked with the archive's log key against the tree recomputed from
 * those leaves before it is stored. In the caller's transaction, into an empty log. What the checkpoint rows
 * cannot get back is when each was signed: they carry the time of the restore.
 */
export async function restoreLog(
  ctx: Ctx,
  tx: Tx,
  input: { leaves: readonly Buffer[]; openings: StoredOpening[]; checkpoints: readonly string[] },
): Promise<{ events: number; checkpoints: number }> {
  const verifiers = ctx.tree.allVerifierKeys().map((k) => newVerifier(k));
  const signed = input.checkpoints.map((note) => {
    let opened;
    try {
      opened = openCheckpoint(note, verifiers);
    } catch (err) {
      throw new IntegrityError(say("log.restoreCheckpointKey", { problem: (err as Error).message }));
    }
    return { note: logSignedOnly(note, opened.checkpoint.origin), cp: opened.checkpoint };
  });
  signed.sort((a, b) => a.cp.size - b.cp.size);
  const appender = MerkleAppender.empty();
  let at = 0;
  for (const s of signed) {
    if (s.cp.size > input.leaves.length) throw new IntegrityError(say("log.restoreTooFewEntries", { size: s.cp.size, entries: input.leaves.length }));
    if (at < s.cp.size) appender.appendLeaves(input.leaves.slice(at, s.cp.size));
    at = s.cp.size;
    if (!appender.root().equals(s.cp.rootHash)) throw new IntegrityError(say("log.restoreRoot", { size: s.cp.size }));
  }
  await ctx.log.restoreLeaves(tx, [...input.leaves], input.openings);
  const createdAt = ctx.clock.now().toISOString();
  for (const s of signed) {
    await tx
      .insertInto("checkpoints")
      .values({ size: s.cp.size, root: s.cp.rootHash, note: s.note, key_name: s.cp.origin, created_at: createdAt, timestamp_token: null, timestamp_authority: null })
      .onConflict((oc) => oc.column("size").doNothing())
      .execute();
  }
  return { events: input.leaves.length, checkpoints: signed.length };
}

/** The note with the log's own signature lines only (a published note also carries witnesses' cosignatures). */
function logSignedOnly(note: string, origin: string): string {
  const cut = note.indexOf("\n\n") + 2;
  const lines = note.slice(cut).split("\n").filter((l) => l.startsWith(`\u2014 ${origin} `));
  return `${note.slice(0, cut)}${lines.map((l) => `${l}\n`).join("")}`;
}
