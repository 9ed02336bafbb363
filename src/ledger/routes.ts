import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { proveOriginal } from "./proofs.ts";

const Consistency = z.object({ from: z.coerce.number().int().min(1), to: z.coerce.number().int().min(1).optional() });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

/**
 * The log over HTTP, for anyone who wants to check it: the latest checkpoint as signed-note text, the verifier
 * key, proofs, and the C2SP tlog-tiles layout under /log/ so monitors and witnesses can follow it.
 */
export function registerLogRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/log/checkpoint",
    action: "log.read",
    summary: "the latest signed checkpoint (C2SP tlog-checkpoint, text)",
    handler: async (_req, ctx) => (await ctx.tree.latestCheckpoint())?.note ?? (await ctx.tree.checkpoint()).note,
  });
  route({
    method: "GET",
    url: "/log/key",
    action: "log.read",
    summary: "the log's verifier key (vkey)",
    handler: async (_req, ctx) => `${ctx.tree.verifierKey}\n`,
  });
  route({
    method: "GET",
    url: "/log/proof/:sha256",
    action: "log.read",
    summary: "tlog-proof of an original's arrival event, with the exact leaf bytes",
    handler: async (req, ctx, actor) => {
      const p = await proveOriginal(ctx, actor, Sha.parse(req.params).sha256);
      return { index: p.seq, proof: p.proof, leaf: p.leaf.toString("utf8") };
    },
  });
  route({
    method: "GET",
    url: "/log/consistency",
    action: "log.read",
    query: Consistency,
    summary: "consistency proof between two signed checkpoints",
    handler: async (_req, ctx, _actor, q) => (await ctx.tree.proveConsistency(q.from, q.to)).text,
  });
  route({
    method: "GET",
    url: "/log/tile/*",
    action: "log.read",
    summary: "C2SP tlog-tiles hash and entry tiles",
    handler: async (req, ctx) => (await ctx.tree.tile(`tile/${(req.params as { "*": string })["*"]}`)).bytes,
  });
}
