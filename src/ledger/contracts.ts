import { z } from "zod";

/**
 * The ledger module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const GetLogProofBySha256Answer = z.object({ index: z.number(), proof: z.string(), leaf: z.string() });
export type GetLogProofBySha256Answer = z.infer<typeof GetLogProofBySha256Answer>;

