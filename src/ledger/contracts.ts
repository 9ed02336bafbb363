import { z } from "zod";

/**
 * The ledger module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const GetLogProofBySha256Answer = z.object({ index: z.number(), proof: z.string(), leaf: z.string() });
export type GetLogProofBySha256Answer = z.infer<typeof GetLogProofBySha256Answer>;


/** GET /api/log/witnesses: for anyone, the witnesses the policy names, what each last cosigned and its last alarm. */
export const LogWitnesses = z.object({
  quorum: z.string().nullable(),
  latestSize: z.number().nullable(),
  witnesses: z.array(
    z.object({
      name: z.string(),
      url: z.string().nullable(),
      lastCosigned: z.object({ size: z.number(), at: z.string() }).nullable(),
      lastAlarm: z.object({ size: z.number(), kind: z.string(), at: z.string() }).nullable(),
      alarms: z.number(),
    }),
  ),
});
export type LogWitnesses = z.infer<typeof LogWitnesses>;
