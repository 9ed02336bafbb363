import { z } from "zod";

/**
 * The core module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const Role = z.enum(["public", "admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator", "family_member"]);
export type Role = z.infer<typeof Role>;

export const JobView = z.object({ status: z.enum(["queued", "running", "done", "failed"]), id: z.string(), kind: z.string(), attempts: z.number(), maxAttempts: z.number(), progress: z.object({ done: z.number(), total: z.number(), note: z.string().nullable() }), result: z.unknown(), error: z.string().nullable(), errorKey: z.string().nullable().optional(), errorParams: z.record(z.union([z.string(), z.number()])).nullable().optional(), createdAt: z.string(), updatedAt: z.string() });
export type JobView = z.infer<typeof JobView>;

/** A row's problem in a CSV import: the English sentence, and the same as a message key the reader's language words. */
export const ImportProblem = z.object({ row: z.number(), column: z.string().nullable(), message: z.string(), key: z.string().nullable(), params: z.record(z.union([z.string(), z.number()])).nullable() });
export type ImportProblem = z.infer<typeof ImportProblem>;

export const Dialect = z.enum(["sqlite", "postgres"]);
export type Dialect = z.infer<typeof Dialect>;

