import { z } from "zod";
import { Action, MAX_PASSWORD, SessionStage, SessionView } from "../access/contracts.ts";
import { Dialect, Role } from "../core/contracts.ts";

/**
 * The http module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const GetSessionAnswer = z.union([z.object({ signedIn: z.boolean(), stage: SessionStage, next: z.string(), user: z.object({ id: z.string(), email: z.string(), role: Role, secondFactor: z.boolean() }).nullable(), expiresAt: z.string(), csrfToken: z.string() }), z.object({ signedIn: z.boolean(), stage: z.literal("full"), user: z.object({ id: z.string(), role: Role, email: z.undefined().optional(), secondFactor: z.undefined().optional() }), next: z.undefined().optional(), expiresAt: z.undefined().optional(), csrfToken: z.undefined().optional() }), z.object({ signedIn: z.boolean(), stage: z.null(), user: z.null(), next: z.undefined().optional(), expiresAt: z.undefined().optional(), csrfToken: z.undefined().optional() })]);
export type GetSessionAnswer = z.infer<typeof GetSessionAnswer>;

export const PostAuthLoginAnswer = z.object({ recoveryCodesLeft: z.number().optional(), user: z.object({ id: z.string(), role: Role }), stage: SessionStage, next: z.string(), expiresAt: z.string(), csrfToken: z.string() });
export type PostAuthLoginAnswer = z.infer<typeof PostAuthLoginAnswer>;

export const PostAuthSecondFactorAnswer = z.object({ recoveryCodesLeft: z.number().optional(), user: z.object({ id: z.string(), role: Role }), stage: SessionStage, next: z.string(), expiresAt: z.string(), csrfToken: z.string() });
export type PostAuthSecondFactorAnswer = z.infer<typeof PostAuthSecondFactorAnswer>;

export const PostAuthPasswordAnswer = z.object({ recoveryCodesLeft: z.number().optional(), user: z.object({ id: z.string(), role: Role }), stage: SessionStage, next: z.string(), expiresAt: z.string(), csrfToken: z.string() });
export type PostAuthPasswordAnswer = z.infer<typeof PostAuthPasswordAnswer>;

export const PostAuthEnrolAnswer = z.object({ secret: z.string(), uri: z.string() });
export type PostAuthEnrolAnswer = z.infer<typeof PostAuthEnrolAnswer>;

export const PostAuthEnrolConfirmAnswer = z.object({ recoveryCodes: z.array(z.string()), recoveryCodesLeft: z.number().optional(), user: z.object({ id: z.string(), role: Role }), stage: SessionStage, next: z.string(), expiresAt: z.string(), csrfToken: z.string() });
export type PostAuthEnrolConfirmAnswer = z.infer<typeof PostAuthEnrolConfirmAnswer>;

export const PostAuthRecoveryCodesAnswer = z.object({ recoveryCodes: z.array(z.string()) });
export type PostAuthRecoveryCodesAnswer = z.infer<typeof PostAuthRecoveryCodesAnswer>;

export const PostAuthLogoutAnswer = z.object({ signedIn: z.boolean() });
export type PostAuthLogoutAnswer = z.infer<typeof PostAuthLogoutAnswer>;

export const PostAuthLogoutEverywhereAnswer = z.object({ ended: z.number() });
export type PostAuthLogoutEverywhereAnswer = z.infer<typeof PostAuthLogoutEverywhereAnswer>;

export const GetAccountSessionsAnswer = z.array(SessionView);
export type GetAccountSessionsAnswer = z.infer<typeof GetAccountSessionsAnswer>;

export const DeleteAccountSessionsByIdAnswer = z.object({ ended: z.boolean() });
export type DeleteAccountSessionsByIdAnswer = z.infer<typeof DeleteAccountSessionsByIdAnswer>;

export const GetHealthAnswer = z.object({ ok: z.boolean(), database: Dialect });
export type GetHealthAnswer = z.infer<typeof GetHealthAnswer>;

export const GetRoutesAnswer = z.array(z.object({ method: z.enum(["GET", "POST", "PUT", "DELETE"]), url: z.string(), action: z.union([Action, z.literal("public")]), summary: z.string() }));
export type GetRoutesAnswer = z.infer<typeof GetRoutesAnswer>;

/** The OpenAPI document itself: its operations are described by the OpenAPI 3.1 schema, not here. */
export const OpenApiDocument = z.object({
  openapi: z.literal("3.1.0"),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  components: z.record(z.unknown()),
  paths: z.record(z.record(z.unknown())),
});

export const GetPermissionsAnswer = z.object({ role: Role, actions: z.array(Action), roles: z.array(Role) });
export type GetPermissionsAnswer = z.infer<typeof GetPermissionsAnswer>;


// What a browser sends while signing in. These belong to the session protocol of this shell (a cookie, the
// address it comes from), not to a use case, so the edge parses them (decision 0021); named here so the web
// app's requests are typed by them.
const Password = z.string().min(1).max(MAX_PASSWORD);
export const LoginInput = z.object({ email: z.string().min(3).max(320), password: Password }).strict();
export const SecondFactorInput = z
  .object({ code: z.string().max(16).optional(), recoveryCode: z.string().max(64).optional() })
  .strict()
  .refine((b) => Boolean(b.code) !== Boolean(b.recoveryCode), { message: "give either code or recoveryCode" });
export const PasswordChangeInput = z.object({ current: Password, next: Password }).strict();
export const CodeInput = z.object({ code: z.string().max(16) }).strict();
