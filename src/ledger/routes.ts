import { z } from "zod";
import { bytes, route, usecase, type RouteSpec } from "../http/route-spec.ts";
import { proveOriginal } from "./proofs.ts";
import { consistencyProof, latestCheckpoint, logTile, publicWitnessStates, verifierKey } from "./reads.ts";
import * as contracts from "./contracts.ts";
import { addWitness, removeWitness, setWitnessQuorum, showWitnessPolicy } from "./witness-admin.ts";

const Consistency = z.object({ from: z.coerce.number().int().min(1), to: z.coerce.number().int().min(1).optional() });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

/**
 * The log over HTTP. Two surfaces:
 * - for anyone (`log.read`): the latest checkpoint, the verifier key, consistency proofs and the C2SP tlog-tiles
 *   hash tiles, so a monitor or witness can hold the archive to one append-only history. Hashes only: nothing
 *   here depends on what the events concern, so nothing here answers "does the archive hold X?".
 * - for those allowed `log.entries` (signed in): the entry bundles (the events themselves) and inclusion proofs,
 *   which name the originals and records each event concerns. The gate refuses before any lookup, so an
 *   anonymous caller gets the same 401 for a hash that is held and one that is not.
 */
export const LOG_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/log/checkpoint",
    action: "log.read",
    summary: "the latest signed checkpoint (C2SP tlog-checkpoint, text) with the witnesses' cosignatures",
    response: bytes("application/octet-stream"),
    handler: async (_req, ctx, actor) => (await latestCheckpoint(ctx, actor)).published,
  }),
  route({
    method: "GET",
    url: "/log/key",
    action: "log.read",
    summary: "the log's verifier key (vkey)",
    response: bytes("application/octet-stream"),
    handler: async (_req, ctx, actor) => `${verifierKey(ctx, actor).vkey}\n`,
  }),
  route({
    method: "GET",
    url: "/api/log/witnesses",
    action: "log.read",
    summary: "the witnesses the policy names, what each last cosigned and its last alarm",
    response: contracts.LogWitnesses,
    handler: async (_req, ctx, actor) => publicWitnessStates(ctx, actor),
  }),
  route({
    method: "GET",
    url: "/log/proof/:sha256",
    action: "log.entries",
    summary: "tlog-proof of an original's arrival event, with the exact leaf bytes (signed-in custodians)",
    params: Sha,
    response: contracts.GetLogProofBySha256Answer,
    handler: async (req, ctx, actor, { params }) => {
      const p = await proveOriginal(ctx, actor, params.sha256);
      return { index: p.seq, proof: p.proof, leaf: p.leaf.toString("utf8") };
    },
  }),
  route({
    method: "GET",
    url: "/log/consistency",
    action: "log.read",
    query: Consistency,
    summary: "consistency proof between two signed checkpoints",
    response: bytes("application/octet-stream"),
    handler: async (_req, ctx, actor, { query: q }) => (await consistencyProof(ctx, actor, q)).text,
  }),
  route({
    method: "GET",
    url: "/log/tile/*",
    action: "log.read",
    summary: "C2SP tlog-tiles hash tiles (tile/<L>/<N>): hashes only, for monitors and witnesses",
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor) => (await logTile(ctx, actor, { path: `tile/${(req.params as { "*": string })["*"]}`, kind: "hash" })).bytes,
  }),
  route({
    method: "GET",
    url: "/log/tile/entries/*",
    action: "log.entries",
    summary: "C2SP tlog-tiles entry bundles (the events themselves; signed-in custodians)",
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor) => (await logTile(ctx, actor, { path: `tile/entries/${(req.params as { "*": string })["*"]}`, kind: "entries" })).bytes,
  }),
  route({
    method: "GET",
    url: "/api/witness-policy",
    action: "witness.manage",
    summary: "the archive's witness policy (admins): its witnesses with keys and addresses, groups and quorum",
    response: contracts.WitnessPolicyView,
    handler: async (_req, ctx, actor) => showWitnessPolicy(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/witness-policy/witnesses",
    action: "witness.manage",
    summary: "add a witness to the policy (name, vkey, submission URL); in force at once, logged",
    body: usecase(contracts.AddWitnessInput),
    response: contracts.WitnessPolicyView,
    handler: async (_req, ctx, actor, { body }) => addWitness(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/witness-policy/witnesses/remove",
    action: "witness.manage",
    summary: "remove a witness from the policy by its name; in force at once, logged",
    body: usecase(contracts.RemoveWitnessInput),
    response: contracts.WitnessPolicyView,
    handler: async (_req, ctx, actor, { body }) => removeWitness(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/witness-policy/quorum",
    action: "witness.manage",
    summary: "set the policy's quorum: a witness, a group or none, or k of some witnesses; in force at once, logged",
    body: usecase(contracts.SetWitnessQuorumInput),
    response: contracts.WitnessPolicyView,
    handler: async (_req, ctx, actor, { body }) => setWitnessQuorum(ctx, actor, body),
  }),
];
