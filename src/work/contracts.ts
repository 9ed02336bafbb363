import { z } from "zod";

/**
 * The work module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/contracts.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

/** A kind of work waiting for someone (see work.ts for what each counts). */
export const WorkKind = z.enum(["proposals", "numbersToCheck", "reviewsAssigned", "disagreements", "flags", "duplicates", "dossiers", "myReports"]);
export type WorkKind = z.infer<typeof WorkKind>;

/** One kind of work: how much waits, where its list is in the web app, and the first few records by reference. */
export const WorkItem = z.object({
  kind: WorkKind,
  count: z.number().int().nonnegative(),
  href: z.string(),
  records: z.array(z.object({ ref: z.string(), href: z.string() })).optional(),
});
export type WorkItem = z.infer<typeof WorkItem>;

export const WorkView = z.object({ items: z.array(WorkItem) });
export type WorkView = z.infer<typeof WorkView>;

export const GetWorkAnswer = WorkView;
export type GetWorkAnswer = z.infer<typeof GetWorkAnswer>;
