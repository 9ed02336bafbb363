import { z } from "zod";
import { Role } from "../core/contracts.ts";

/**
 * The access module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const UserView = z.object({ id: z.string(), email: z.string(), role: Role, disabled: z.boolean(), secondFactor: z.boolean(), mustChangePassword: z.boolean(), createdAt: z.string(), lastSignInAt: z.string().nullable() });
export type UserView = z.infer<typeof UserView>;

export const GetUsersAnswer = z.array(UserView);
export type GetUsersAnswer = z.infer<typeof GetUsersAnswer>;

export const PostUsersAnswer = z.object({ user: UserView, oneTimePassword: z.string() });
export type PostUsersAnswer = z.infer<typeof PostUsersAnswer>;

export const PostUsersByIdResetAnswer = z.object({ user: UserView, oneTimePassword: z.string() });
export type PostUsersByIdResetAnswer = z.infer<typeof PostUsersByIdResetAnswer>;

export const Action = z.enum(["users.manage", "archive.read", "archive.ingest", "archive.verify", "original.view", "original.reveal", "metadata.sensitive", "log.read", "log.entries", "mirror.manage", "mirror.follow", "witness.manage", "jobs.read", "jobs.run", "account.self", "token.manage", "people.names", "work.read", "sealed.list", "sealed.write", "sealed.open", "keys.rotate", "personal.read", "report.read", "disclosure.read", "catalogue.read", "catalogue.group", "catalogue.edit", "catalogue.check", "catalogue.import", "catalogue.export", "vocabulary.manage", "report.file", "report.edit", "report.import", "family.match", "family.candidates", "disclosure.make", "dna.refer", "package.export", "review.sample", "review.assign", "review.submit", "review.read", "review.resolve", "review.stats", "dossier.read", "dossier.edit", "redaction.mark", "authenticity.run", "authenticity.read", "authenticity.ela", "exhibition.read", "exhibition.edit", "exhibition.review", "exhibition.publish"]);
export type Action = z.infer<typeof Action>;

export const ApiTokenView = z.object({ id: z.string(), name: z.string(), scopes: z.array(Action), createdAt: z.string(), lastUsedAt: z.string().nullable(), expiresAt: z.string().nullable(), revoked: z.boolean() });
export type ApiTokenView = z.infer<typeof ApiTokenView>;

export const GetTokensAnswer = z.array(ApiTokenView);
export type GetTokensAnswer = z.infer<typeof GetTokensAnswer>;

export const PostTokensAnswer = ApiTokenView.merge(z.object({ token: z.string() }));
export type PostTokensAnswer = z.infer<typeof PostTokensAnswer>;

export const SealedView = z.object({ sourceId: z.string(), sealedAt: z.string(), sealedBy: z.string(), keyId: z.string() });
export type SealedView = z.infer<typeof SealedView>;

export const GetSealedAnswer = z.array(SealedView);
export type GetSealedAnswer = z.infer<typeof GetSealedAnswer>;

export const Sensitivity = z.enum(["public", "internal", "restricted", "confidential"]);
export type Sensitivity = z.infer<typeof Sensitivity>;

export const SessionStage = z.enum(["password_change", "totp_enrol", "totp", "full"]);
export type SessionStage = z.infer<typeof SessionStage>;

export const SessionView = z.object({ id: z.string(), createdAt: z.string(), lastSeenAt: z.string(), expiresAt: z.string(), current: z.boolean() });
export type SessionView = z.infer<typeof SessionView>;


/** Who is behind an account id (POST /api/people/names): an account by address and role, the console's operator, the software, or unknown. */
export const PersonName = z.discriminatedUnion("kind", [
  z.object({ id: z.string(), kind: z.literal("account"), email: z.string().nullable(), role: Role }),
  z.object({ id: z.string(), kind: z.literal("operator"), login: z.string() }),
  z.object({ id: z.string(), kind: z.literal("system") }),
  z.object({ id: z.string(), kind: z.literal("unknown") }),
]);
export type PersonName = z.infer<typeof PersonName>;

export const PostPeopleNamesAnswer = z.object({ people: z.array(PersonName) });
export type PostPeopleNamesAnswer = z.infer<typeof PostPeopleNamesAnswer>;

// What the use cases take (decision 0021): each parses its own input with `parseInput`, and the route names the
// same schema with `usecase(...)`. Shapes and sizes only: the rules a person needs worded (an address that is no
// address, a role that does not exist, a token with no name or no scope) stay in the use case, which says them.
export const AddUserInput = z.object({ email: z.string().max(320), role: z.string().max(40) }).strict();
export const ResetUserInput = z.object({ user: z.string().min(1).max(320), secondFactor: z.boolean().optional() }).strict();
export const CreateApiTokenInput = z.object({ name: z.string().max(200), scopes: z.array(z.string().max(40)).max(60), days: z.number().optional() }).strict();
export const MAX_NAMES = 500;
export const PeopleNamesInput = z.object({ ids: z.array(z.string().min(1).max(200)).max(MAX_NAMES + 1) }).strict();
/** A source's identity is a few lines (a name, how to reach them), never a document: 64 KiB at most. */
export const MAX_IDENTITY_BYTES = 64 * 1024;
export const SealIdentityInput = z.object({ sourceId: z.string().min(1).max(64), identity: z.string().max(MAX_IDENTITY_BYTES), replace: z.boolean().optional() }).strict();
/** argon2 takes any length, but a megabyte password is a way to burn server time, not a password. */
export const MAX_PASSWORD = 256;
