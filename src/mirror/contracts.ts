import { z } from "zod";

/** The mirror module's contracts (see src/ledger/contracts.ts for the convention). */
export const MirrorGrantView = z.object({ id: z.string(), name: z.string(), createdAt: z.string(), revokedAt: z.string().nullable(), lastSeenAt: z.string().nullable() });
export type MirrorGrantView = z.infer<typeof MirrorGrantView>;

export const GetMirrorsAnswer = z.array(MirrorGrantView);
export type GetMirrorsAnswer = z.infer<typeof GetMirrorsAnswer>;
