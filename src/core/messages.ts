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
  // Archive: blobs, keys, intake, uploads, viewing (src/archive).
  "blob.damagedHeader": ["problem", "sha256"],
  "blob.damagedLengthChanged": ["sha256"],
  "blob.changedWhileRead": ["sha256"],
  "blob.endedEarly": ["sha256"],
  "blob.chunkFailed": ["chunk", "chunks", "sha256"],
  "blob.tempSizeDisk": ["bytes", "expected"],
  "blob.urlScheme": ["url"],
  "keys.masterLength": ["length", "wanted"],
  "keys.notAKey": ["wanted", "where"],
  "keys.readableByOthers": ["mode", "path"],
  "keys.idMismatch": ["file", "id"],
  "keys.incomplete": ["missing"],
  "keys.masterFromEnvironment": [],
  "keys.rewrapFailed": ["count", "key", "problem"],
  "blob.urlInvalid": ["url"],
  "blob.urlS3Shape": ["url"],
  "blob.noBucket": ["where"],
  "blob.bucketForbidden": ["where"],
  "blob.tempSize": ["bytes", "expected"],
  "blob.tempSizeS3": ["bytes", "expected"],
  "blob.chunkSize": ["max", "min"],
  "blob.markerDamaged": ["marker"],
  "blob.namingKey": [],
  "request.notSha256": ["field"],
  "blob.maxBytes": [],
  "blob.streamTooLong": [],
  "blob.fileTooLarge": ["maxBytes"],
  "blob.notFound": ["sha256"],
  "blob.damagedLength": ["sha256", "size"],
  "blob.sidecarMissing": ["sha256"],
  "blob.cannotDecrypt": ["problem", "sha256"],
  "blob.masterNotLoaded": ["keyId", "sha256"],
  "blob.recordAltered": ["keyId", "sha256"],
  "blob.damagedLengthShort": ["sha256", "size"],
  "blob.disappeared": ["sha256"],
  "blob.hashMismatch": ["actual", "blob"],
  "blob.tooLargeToBuffer": ["sha256", "size"],
  "upload.hashMismatch": ["actual", "expected"],
  "blob.notBytes": [],
  "range.offsets": [],
  "range.startAfterEnd": ["end", "start"],
  "range.beyond": ["end", "last", "size", "start"],
  "demoCard.bodies": ["max"],
  "demoCard.concurrency": [],
  "demoCard.seed": [],
  "demoCard.folderNotEmpty": ["folder"],
  "demoCard.anomaliesNeedPhotos": ["min"],
  "demoCard.filesPerFolder": [],
  "demoCard.full": [],
  "demoCard.startDate": ["date"],
  "intake.pathNeeded": [],
  "job.notFound": ["id"],
  "fat.notAnImage": ["path", "reason"],
  "fat.bootSector": ["partition", "path", "problem"],
  "fat.tooManyClusters": ["clusters", "max"],
  "fat.tooManyEntries": ["max"],
  "container.endedEarly": ["label"],
  "folder.cannotList": ["problem", "root"],
  "folder.changed": ["path"],
  "path.missing": ["path"],
  "path.unreadable": ["path"],
  "path.notACard": ["path"],
  "zip.unreadable": ["message", "path"],
  "zip.tooManyEntries": ["entries", "max", "path"],
  "zip.entryUnreadable": ["label", "message"],
  "zip.bomb": ["declared", "label"],
  "zip.sizeMismatch": ["declared", "label", "seen"],
  "zip.crc": ["label"],
  "reveal.reasonNeeded": [],
  "reveal.reasonTooLong": ["max"],
  "upload.notFound": [],
  "upload.labelTooLong": ["max"],
  "upload.labelOneLine": [],
  "upload.badPath": ["path", "why"],
  "upload.pathOutside": [],
  "upload.fileWhereFolder": ["folder"],
  "upload.folderWhereFile": [],
  "upload.takingIn": [],
  "upload.containerOneFile": [],
  "upload.fileTooLargeCli": ["gib"],
  "upload.diskFull": [],
  "upload.fileTooLarge": ["gib"],
  "upload.sizeMismatch": ["declared", "size"],
  "upload.startedMeanwhile": [],
  "upload.empty": [],
  "upload.containerExactlyOne": [],
  "rendition.afterReveal": ["rendition", "sha256"],
  "rendition.noBlurred": ["sha256"],
  "rendition.none": ["rendition", "sha256"],
  "source.notFoundId": ["source"],
  // Archive: what a path given for intake is.
  "path.device": ["path"],
  "path.notACardWhy": ["path", "why"],
  // Ledger: checkpoints, notes, proofs, tiles, timestamps, witnesses (src/ledger, src/witness).
  "checkpoint.origin": [],
  "checkpoint.size": ["size"],
  "checkpoint.rootLength": [],
  "checkpoint.extensionLines": [],
  "checkpoint.newline": [],
  "checkpoint.threeLines": [],
  "checkpoint.originEmpty": [],
  "checkpoint.rootNotBase64": [],
  "checkpoint.extensionEmpty": [],
  "cosignature.time": ["time"],
  "cosignature.bodyNewline": [],
  "cosignature.name": ["name"],
  "keys.ed25519Public": [],
  "witness.keyType": ["key", "name"],
  "witness.keyIdMismatch": ["keyId", "name"],
  "witness.signingKeyId": [],
  "cosignature.lines": [],
  "cosignature.emDash": ["line"],
  "cosignature.lineShape": ["name"],
  "cosignature.doesNotVerify": ["keyId", "name"],
  "log.hashStoreIncomplete": ["asked", "got"],
  "log.hashMissing": ["index"],
  "note.keyName": ["name"],
  "keys.ed25519Seed": [],
  "note.signingAlgorithm": [],
  "note.signingKeyId": [],
  "note.verifierAlgorithm": ["name"],
  "note.verifierKeyId": ["keyId", "name"],
  "note.cannotSign": ["problem"],
  "note.noSigningKey": [],
  "note.notUtf8": [],
  "note.malformed": ["why"],
  "note.signatureFails": ["keyId", "name"],
  "note.untrusted": ["names"],
  "proof.sha256Option": [],
  "proof.noOriginal": ["sha256"],
  "timestamp.notTimestamped": [],
  "witness.noPolicy": [],
  "tile.badPath": ["path"],
  "tile.hashesMissing": ["tile"],
  "tile.entryTooLarge": ["bytes"],
  "tile.bundleLengthCut": [],
  "tile.bundleEntryCut": [],
  "tile.entriesMissing": ["tile"],
  "tile.notFound": ["path"],
  "tile.beyond": ["path", "size"],
  "timestamp.imprintLength": [],
  "timestamp.nonceLength": [],
  "timestamp.urlInvalid": ["url"],
  "timestamp.urlProtocol": ["protocol"],
  "timestamp.urlCredentials": [],
  "timestamp.hashAlgorithm": ["hashAlgorithm"],
  "timestamp.coversOther": ["actual", "digest", "genTime", "hashAlgorithm", "serial"],
  "timestamp.caMissing": ["caFile"],
  "timestamp.noOpenssl": [],
  "proof.hashLength": [],
  "proof.index": ["index"],
  "proof.checkpointNote": [],
  "proof.endsEarly": [],
  "proof.header": ["header"],
  "proof.extraLine": [],
  "proof.indexLine": [],
  "proof.noCheckpoint": [],
  "consistency.newline": [],
  "consistency.header": ["header"],
  "consistency.sizes": [],
  "checkpoint.none": [],
  "timestamp.notConfigured": [],
  "log.keyNotRegistered": [],
  "log.inconsistent": ["signed", "size"],
  "log.noEvent": ["seq"],
  "consistency.fromNeeded": [],
  "checkpoint.noneOfSize": ["all", "size"],
  "consistency.toBeforeFrom": ["from", "to"],
  "witness.policyMissing": ["file"],
  "witness.policyControl": ["source"],
  "witness.noQuorum": ["source"],
  "witness.exists": ["dir"],
  "witness.none": ["dir"],
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
