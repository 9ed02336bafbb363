import { z } from "zod";

/** The mirror module's contracts (see src/ledger/contracts.ts for the convention). */
export const MirrorGrantView = z.object({ id: z.string(), name: z.string(), createdAt: z.string(), revokedAt: z.string().nullable(), lastSeenAt: z.string().nullable() });
export type MirrorGrantView = z.infer<typeof MirrorGrantView>;

export const GetMirrorsAnswer = z.array(MirrorGrantView);
export type GetMirrorsAnswer = z.infer<typeof GetMirrorsAnswer>;

/** Grant a mirror (`dalil mirror grant NAME`, POST /api/mirrors): the custodian's name as the admin gives it. */
export const GrantMirrorInput = z.object({ name: z.string().min(1).max(120) }).strict();
export type GrantMirrorInput = z.infer<typeof GrantMirrorInput>;

/** The grant, with its token: shown this once, stored only as its SHA-256. */
export const MirrorGrantIssued = MirrorGrantView.extend({ token: z.string() });
export type MirrorGrantIssued = z.infer<typeof MirrorGrantIssued>;

/** Revoke a mirror's live grant by the custodian's name (`dalil mirror revoke NAME`, POST /api/mirrors/revoke). */
export const RevokeMirrorInput = z.object({ name: z.string().min(1).max(120) }).strict();
export type RevokeMirrorInput = z.infer<typeof RevokeMirrorInput>;
