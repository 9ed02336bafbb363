/** The access module: accounts, sign-in, sessions, tokens, the policy, sealed identities, recorded reads. */
export {
  policy,
  gateRefusal,
  anonymousActor,
  isAnonymous,
  ANONYMOUS_ID,
  ACTIONS,
  RULES,
  PERMISSIONS,
  CLEARANCE,
  SENSITIVITIES,
  type Action,
  type Policy,
  type Resource,
  type Relation,
  type Sensitivity,
  type Standing,
  STANDINGS,
  JOB_KINDS,
  readableJobKinds,
  type ScopedActor,
  type Decision,
} from "./policy.ts";
export { actorNow, addUser, listUsers, disableUser, enableUser, resetUser, findUser, findAccountOfRole, parseRole, normaliseEmail, peopleByIds, type Person, type UserView, type AddUser, type ResetUser } from "./users.ts";
export {
  signIn,
  verifySecondFactor,
  changePassword,
  beginEnrolment,
  confirmEnrolment,
  regenerateRecoveryCodes,
  signOut,
  signOutEverywhere,
  describeStage,
  RECOVERY_CODES,
  type SignedIn,
  type SignInInput,
  type SecondFactor,
  type ChangePassword,
} from "./signin.ts";
export {
  findSession,
  issueSession,
  csrfTokenFor,
  sessionsOf,
  SESSION_LIMITS,
  type SessionStage,
  type IssuedSession,
  type LiveSession,
  type SessionView,
} from "./sessions.ts";
export { listOwnSessions, revokeOwnSession } from "./account.ts";
export { peopleNames, MAX_NAMES, type PeopleNamesInput, type PersonName } from "./people.ts";
export { createApiToken, listApiTokens, revokeApiToken, actorForToken, TOKEN_PREFIX, type ApiTokenView, type CreateApiToken } from "./tokens.ts";
export { sealIdentity, listSealed, isSealed, openSealedIdentity, MAX_IDENTITY_BYTES, type SealedView, type SealIdentity, type OpenSealed, type SourceExists } from "./sealed.ts";
export { recordOriginalRead, recordPersonalDataRead } from "./reads.ts";
export { isSensitiveField, withoutSensitiveFields, metadataFor } from "./sensitive-metadata.ts";
export { accessChangesFor, type AccessChange } from "./audit.ts";
export { THROTTLE } from "./throttle.ts";
export { blindScope, hiddenByBlind, setBlindProvider, type BlindScope } from "./blind.ts";
export { constantTimeEqual, loadKeyFile, sha256Hex } from "./secrets.ts";
export { MAX_PASSWORD, MIN_PASSWORD } from "./passwords.ts";
export { totpCode } from "./totp.ts";
export { rotateSealedKey, type SealedRotation } from "./keys.ts";
