import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The messages the server sends a person as keys with parameters, so the web app words them in the reader's
 * language (web/src/i18n/areas/server.<lang>.json, `server.<key>`), as families' evidence already travels. The
 * English sentence in the error itself (for the CLI, the log and API clients) is worded from the same English
 * words the web app uses (`say`), so the two never disagree. Each key lists the parameters it carries (a counted
 * message carries `count` and has i18next plural forms: `_one`/`_other` in English, all six in Arabic); test/web/server-messages.test.ts walks this table and checks both languages word every
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
  // Access: sealed records, keys, tokens (src/access).
  "sealed.keyMissingRotate": ["file"],
  "sealed.underMissingKey": ["key", "source"],
  "sealed.identityEmpty": [],
  "sealed.identityTooLong": ["kib"],
  "source.notFound": ["source"],
  "sealed.identityExists": ["source"],
  "sealed.keyMissingSeal": ["file"],
  "sealed.reasonNeeded": ["min"],
  "sealed.keyMissingOpen": ["file"],
  "sealed.noIdentity": ["source"],
  "sealed.truncated": [],
  "sealed.wrongKey": [],
  "keys.badKeyFile": ["file"],
  "token.fromSession": [],
  "token.name": [],
  "token.scopeNeeded": [],
  "token.noAction": ["action"],
  "token.beyondRole": ["action", "role"],
  "token.days": ["max"],
  "token.notFound": [],
  "job.queuerGone": [],
  "job.queuerDisabled": [],
  // Signing in, stage by stage (src/access/signin.ts).
  "sealed.couldNotOpen": [],
  "signin.already": [],
  "signin.finishTotp": [],
  "signin.finishPasswordChange": [],
  "signin.finishTotpEnrol": [],
  // Access: sealed records.
  "sealed.keyNotHere": ["key", "keys"],
} as const satisfies Record<string, readonly string[]>;

export type MessageKey = keyof typeof MESSAGES;
export type MessageParams = Readonly<Record<string, string | number>>;
export const MESSAGE_KEYS = Object.keys(MESSAGES) as MessageKey[];

/** The parameters a key is said with: exactly those the table lists (none: nothing, or `{}`). */
type ParamsOf<K extends MessageKey> = (typeof MESSAGES)[K] extends readonly [] ? [] | [Record<string, never>] : [{ readonly [P in (typeof MESSAGES)[K][number]]: string | number }];

/** A message as a key with parameters, before it is worded; errors take one in place of an English sentence. */
export interface Said {
  readonly key: MessageKey;
  readonly params: MessageParams;
}

/** Say `key` with `params`: the error (or record) carries both, and its English sentence is worded from them. */
export function say<K extends MessageKey>(key: K, ...params: ParamsOf<K>): Said;
export function say(key: MessageKey, params: MessageParams = {}): Said {
  return { key, params };
}

type Tree = { [k: string]: string | Tree };
let englishWords: Tree | undefined;
function wordsEn(): Tree {
  englishWords ??= (JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "web", "src", "i18n", "areas", "server.en.json"), "utf8")) as { server: Tree }).server;
  return englishWords;
}
function lookup(key: string): string | undefined {
  let node: string | Tree | undefined = wordsEn();
  for (const part of key.split(".")) node = typeof node === "object" ? node[part] : undefined;
  if (typeof node === "string") return node;
  // i18next looks a dotted key up whole too ("archive.read" under "action").
  const dot = key.indexOf(".");
  const head = key.slice(0, dot);
  const group = wordsEn()[head];
  if (dot > 0 && typeof group === "object" && typeof group[key.slice(dot + 1)] === "string") return group[key.slice(dot + 1)] as string;
  return undefined;
}
const EN_PLURAL = new Intl.PluralRules("en");

/**
 * The English sentence of a message, as the web app words it in English: the same words
 * (web/src/i18n/areas/server.en.json), the plural form its `count` calls for, and roles, actions, markings and
 * kinds of record in words. The CLI prints it; HTTP answers carry it beside the key.
 */
export function english(key: string, params: MessageParams = {}): string {
  const count = params.count;
  const template = (typeof count === "number" ? lookup(`${key}_${EN_PLURAL.select(count)}`) ?? lookup(`${key}_other`) : undefined) ?? lookup(key);
  if (template === undefined) return key;
  const worded: Record<string, string | number> = { ...params };
  if (typeof params.role === "string") worded.role = params.role.replace(/_/g, " ");
  for (const group of ["sensitivity", "action", "kind"] as const) {
    const v = params[group];
    if (typeof v === "string") worded[group] = lookup(`${group}.${v}`) ?? v;
  }
  return template.replace(/\{\{(\w+)\}\}/g, (m, name: string) => (name in worded ? String(worded[name]) : m));
}
