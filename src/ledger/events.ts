import { canonicalBytes } from "../core/canonical-json.ts";
import { actorRef, type Actor } from "../core/actor.ts";
import { newId } from "../core/ids.ts";
import { SOFTWARE } from "../core/version.ts";
import { assertSealed } from "./openings.ts";

/**
 * A custody event: one act on evidence. Its canonical bytes (RFC 8785 JSON of the record below) are the leaf of
 * the Merkle log, so the record is versioned (`v`) and every field a verifier needs is inside it.
 * Event types follow the PREMIS event-type vocabulary where one fits; the archive's own are marked.
 */
export const EVENT_VERSION = "dalil.custody/1";

export type EventType =
  | "accession" // PREMIS: a source medium received
  | "ingestion" // PREMIS: an original stored (outcome "duplicate" for another sighting of a stored original)
  | "quarantine" // PREMIS: a file that could not be processed, kept with its reason
  | "creation" // PREMIS: a derived file (rendition) made
  | "fixity check" // PREMIS
  | "message digest calculation" // PREMIS
  | "format identification" // PREMIS
  | "validation" // PREMIS
  | "digital signature generation" // PREMIS: a checkpoint signed
  | "replication" // PREMIS
  | "transfer" // PREMIS
  | "redaction" // PREMIS
  | "deletion" // PREMIS: a copy removed (an expired package's bag, an ingested upload); never an original
  | "key rotation" // dalil
  | "witness policy change" // dalil: the witnesses or quorum the archive's checkpoints are sent to
  | "viewed original" // dalil: access
  | "revealed graphic image" // dalil: access (an unblurred rendition shown in a view)
  | "downloaded original" // dalil: access (the original's bytes leave the archive as a file)
  | "viewed personal data" // dalil: access
  | "opened sealed record" // dalil: access
  | "metadata modification" // PREMIS
  | "review" // dalil
  | "disclosure" // dalil
  | "identification" // dalil
  | "export"; // dalil

export type Outcome = "success" | "failure" | "duplicate" | "warning";

export interface EventObject {
  sha256?: string;
  /** A non-file record (source, body, report …) named by its id. */
  id?: string;
  role: string;
}

export interface CustodyEvent {
  v: typeof EVENT_VERSION;
  id: string;
  type: EventType;
  at: string;
  actor: { kind: string; id: string; role: string };
  software: { name: string; version: string };
  objects: EventObject[];
  outcome: Outcome;
  detail: Record<string, unknown>;
}

export function custody(
  type: EventType,
  actor: Actor,
  at: Date,
  objects: EventObject[],
  detail: Record<string, unknown> = {},
  outcome: Outcome = "success",
): CustodyEvent {
  // Keys in canonical (sorted) order, so that the leaf is serialised in one pass (canonicalJson's fast path).
  return {
    actor: actorRef(actor),
    at: at.toISOString(),
    detail,
    id: newId("evt"),
    objects: objects.map(inKeyOrder),
    outcome,
    software: { ...SOFTWARE },
    type,
    v: EVENT_VERSION,
  };
}

function inKeyOrder(o: EventObject): EventObject {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = (o as unknown as Record<string, unknown>)[k];
  return out as unknown as EventObject;
}

export function leafBytes(e: CustodyEvent): Buffer {
  assertSealed(e);
  return canonicalBytes(e);
}

export function parseLeaf(leaf: Buffer): CustodyEvent {
  const e = JSON.parse(leaf.toString("utf8")) as CustodyEvent;
  if (e.v !== EVENT_VERSION) throw new Error(`unknown custody event version ${String(e.v)}`);
  return e;
}
