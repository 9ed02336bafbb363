/**
 * The messages the server sends a person as keys with parameters, so the web app words them in the reader's
 * language (web/src/i18n/areas/server.<lang>.json, `server.<key>`), as families' evidence already travels. The
 * English sentence stays in the error itself for the CLI, the log and API clients. Each key lists the
 * parameters it carries; test/web/server-messages.test.ts walks this table and checks both languages word every
 * key with exactly these parameters.
 */
export const MESSAGES = {
  // Who may do what (src/access/policy.ts, the route gate, src/http).
  "refusal.signIn": [],
  "refusal.role": ["role", "action"],
  "refusal.scope": ["action"],
  "refusal.sensitivity": ["role", "sensitivity"],
  "refusal.relation": ["role"],
  "refusal.noSignInUnderway": [],
  "refusal.otherSite": [],
  "refusal.csrf": [],
  "refusal.badToken": [],
  // Requests (src/http/app.ts).
  "request.noRoute": ["method", "path"],
  "request.invalid": ["field"],
  "request.invalidBody": [],
  "request.tooLarge": ["bytes"],
  "request.contentType": ["wanted"],
  "request.failed": [],
  // Signing in and accounts (src/access).
  "signin.badPassword": [],
  "signin.accountCannot": [],
  "signin.throttled": ["time"],
  "signin.currentPasswordWrong": [],
  "signin.passwordUnchanged": [],
  "signin.totpSetUp": [],
  "signin.totpStartFirst": [],
  "signin.badCode": [],
  "password.tooShort": ["min"],
  "password.tooLong": ["max"],
  "password.containsEmail": [],
  "account.noRole": ["role"],
  "account.email": [],
  "account.exists": [],
  "account.notFound": [],
  "account.notOfRole": ["role"],
  "account.disableSelf": [],
  "session.notFound": [],
  // Records looked up by reference or id.
  "record.notFound": ["kind"],
  // People named on screens (src/access/people.ts).
  "people.tooMany": ["max"],
  // Exhibitions (src/exhibitions).
  "exhibition.secondPerson": ["ref"],
  "exhibition.notDraft": ["ref", "status"],
  "exhibition.unreviewed": ["ref", "items"],
  "exhibition.noConsent": ["ref", "items"],
} as const satisfies Record<string, readonly string[]>;

export type MessageKey = keyof typeof MESSAGES;
export type MessageParams = Readonly<Record<string, string | number>>;
export const MESSAGE_KEYS = Object.keys(MESSAGES) as MessageKey[];
