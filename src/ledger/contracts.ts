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

/** A witness name in the policy: one word (tlog-policy names are split on spaces), not "none". */
const WitnessName = z.string().min(1).max(64).regex(/^[^\s#]+$/, "must be one word without spaces");

/** GET /api/witness-policy (admins): the archive's witness policy as the file holds it, or would (no file yet). */
export const WitnessPolicyView = z.object({
  /** Where the policy is kept on the server: DALIL_WITNESS_POLICY or DATA/witnesses.policy. */
  file: z.string(),
  exists: z.boolean(),
  witnesses: z.array(z.object({ name: z.string(), vkey: z.string(), url: z.string().nullable() })),
  groups: z.array(z.object({ name: z.string(), threshold: z.number(), members: z.array(z.string()) })),
  /** A witness or group name, or "none". */
  quorum: z.string(),
});
export type WitnessPolicyView = z.infer<typeof WitnessPolicyView>;

/** Add a witness (POST /api/witness-policy/witnesses, `dalil witness-policy add NAME VKEY [URL]`). */
export const AddWitnessInput = z.object({ name: WitnessName, vkey: z.string().min(1).max(200), url: z.string().max(500).optional() }).strict();
export type AddWitnessInput = z.infer<typeof AddWitnessInput>;

/** Remove a witness by its name in the policy (POST /api/witness-policy/witnesses/remove). */
export const RemoveWitnessInput = z.object({ name: WitnessName }).strict();
export type RemoveWitnessInput = z.infer<typeof RemoveWitnessInput>;

/**
 * Set the quorum (POST /api/witness-policy/quorum): one witness or group by name, or "none"; or k of some
 * witnesses and groups (written as the group "quorum").
 */
export const SetWitnessQuorumInput = z
  .object({ quorum: WitnessName.optional(), threshold: z.number().int().min(1).max(256).optional(), members: z.array(WitnessName).min(1).max(256).optional() })
  .strict()
  // one object rather than a union, so that the OpenAPI document describes the body as an object
  .refine((b) => (b.quorum !== undefined ? b.threshold === undefined && b.members === undefined : b.threshold !== undefined && b.members !== undefined), {
    message: "give either quorum, or threshold and members",
  });
export type SetWitnessQuorumInput = z.infer<typeof SetWitnessQuorumInput>;
