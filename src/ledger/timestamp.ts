import { spawn } from "node:child_process";
import { createHash, getHashes, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IntegrityError, Invalid, NotFound } from "../core/errors.ts";
import {
  DerError,
  Fields,
  Tag,
  childrenOf,
  contextTag,
  derBoolean,
  derInteger,
  derNull,
  derOctetString,
  derOid,
  derSequence,
  explicitInner,
  expect,
  readBoolean,
  readDer,
  readGeneralizedTime,
  readInteger,
  readNull,
  readOid,
  readString,
  type DerNode,
} from "./asn1.ts";
import { say, type Said } from "../core/messages.ts";

/**
 * RFC 3161 trusted time for signed checkpoints. The archive asks a timestamp authority (TSA) to sign the SHA-256
 * of a checkpoint note's exact bytes; the token it returns proves the checkpoint existed at that time to anyone
 * who trusts the TSA, without trusting the archive. This module builds requests, checks replies against the
 * request (status, imprint, nonce), reads tokens, and hands signature and chain checking to `openssl ts -verify`
 * so the verdict comes from an independent standard tool. See docs/formats/timestamps.md.
 */

const OID_SHA256 = "2.16.840.1.101.3.4.2.1";
const OID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const OID_TST_INFO = "1.2.840.113549.1.9.16.1.4";

/** Digest algorithms a TSA may echo, by OID → node:crypto / OpenSSL name. */
const HASH_NAMES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.4": "sha224",
  [OID_SHA256]: "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
  "2.16.840.1.101.3.4.2.8": "sha3-256",
  "2.16.840.1.101.3.4.2.9": "sha3-384",
  "2.16.840.1.101.3.4.2.10": "sha3-512",
};

const STATUS_NAMES = ["granted", "grantedWithMods", "rejection", "waiting", "revocationWarning", "revocationNotification"];

/** PKIFailureInfo bit numbers (RFC 3161 §2.4.2). */
const FAILURE_NAMES: Record<number, string> = {
  0: "badAlg (unsupported hash algorithm)",
  2: "badRequest (transaction not permitted or supported)",
  5: "badDataFormat (malformed request)",
  14: "timeNotAvailable (the TSA's time source is not available)",
  15: "unacceptedPolicy (requested policy not supported)",
  16: "unacceptedExtension (requested extension not supported)",
  17: "addInfoNotAvailable",
  25: "systemFailure (the TSA failed internally)",
};

/** Short names for the attribute types a TSA's directory name usually has (RFC 4514 §3 and common use). */
const ATTRIBUTE_NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.5": "SERIALNUMBER",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.97": "organizationIdentifier",
  "0.9.2342.19200300.100.1.1": "UID",
  "0.9.2342.19200300.100.1.25": "DC",
  "1.2.840.113549.1.9.1": "emailAddress",
};

export interface TimestampRequest {
  /** The DER TimeStampReq to POST. */
  der: Buffer;
  /** The nonce sent (unsigned big-endian); the reply must echo it. */
  nonce: Buffer;
  /** SHA-256 of the timestamped data: the messageImprint. */
  digest: Buffer;
}

export interface TimestampInfo {
  /** The TSA's time, RFC 3339 UTC, with the fraction of a second exactly as the TSA gave it (if any). */
  genTime: string;
  /** The token's serial number as `openssl ts -reply -text` prints it, e.g. "0x02". */
  serial: string;
  /** The TSA policy under which the token was issued (dotted OID). */
  policy: string;
  /** "sha256" etc., or the dotted OID of an algorithm this module does not name. */
  hashAlgorithm: string;
  /** The messageImprint's hash: the digest of the timestamped data. */
  digest: Buffer;
  /** The TSA's name from the token, if it gave one (RFC 4514 for a directory name, else "DNS:…", "URI:…", "email:…"). */
  tsaName?: string;
}

export interface TimestampResult {
  /** The TimeStampToken: a DER CMS ContentInfo (SignedData over TSTInfo), as `openssl ts -verify -token_in` reads it. */
  token: Buffer;
  genTime: string;
  serial: string;
  policy: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 256 * 1024;
const NONCE_BYTES = 8;

/** Encodes a TimeStampReq v1 for a SHA-256 digest (exported for callers holding only the digest, and for tests). */
export function encodeTimestampRequest(digest: Buffer, nonce: Buffer, certReq = true): Buffer {
  if (digest.length !== 32) throw new Invalid(say("timestamp.imprintLength"));
  if (nonce.length === 0 || nonce.length > 32) throw new Invalid(say("timestamp.nonceLength"));
  const parts = [
    derInteger(1n),
    derSequence(derSequence(derOid(OID_SHA256), derNull()), derOctetString(digest)),
    derInteger(nonce),
  ];
  // certReq is DEFAULT FALSE, so DER leaves it out unless true.
  if (certReq) parts.push(derBoolean(true));
  return derSequence(...parts);
}

/**
 * A TimeStampReq v1 over SHA-256(data) with a random 64-bit nonce, asking for the TSA's certificate in the token
 * (so a stranger needs only the CA certificate to check it).
 */
export function buildTimeStampRequest(data: Buffer, opts: { nonce?: Buffer; certReq?: boolean } = {}): TimestampRequest {
  const digest = createHash("sha256").update(data).digest();
  const nonce = opts.nonce ?? randomBytes(NONCE_BYTES);
  return { der: encodeTimestampRequest(digest, nonce, opts.certReq ?? true), nonce, digest };
}

/**
 * Asks the TSA at `tsaUrl` to timestamp `data` (a signed checkpoint note's bytes) and checks the reply against
 * the request: the status must be granted, the token's imprint must be SHA-256 of `data`, the nonce must be ours,
 * and the TSA's certificate must be in the token. It does not check the CMS signature: use
 * verifyTimestampWithOpenSSL with the TSA's CA certificate for that.
 */
export async function requestTimestamp(
  tsaUrl: string,
  data: Buffer,
  opts: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<TimestampResult> {
  const url = parseTsaUrl(tsaUrl);
  const tsa = `${url.origin}${url.pathname === "/" ? "" : url.pathname}`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const req = buildTimeStampRequest(data);

  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query", accept: "application/timestamp-reply" },
      body: req.der,
      redirect: "manual",
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw new Invalid(say("timestamp.noAnswer", { tsa, ms: timeoutMs }));
    throw new Invalid(say("timestamp.unreachable", { tsa, problem: networkReason(err) }));
  }

  const reply = await readBounded(res, tsa, maxBytes, timeoutMs, signal);
  const token = checkReply(reply, tsa);
  const info = parseToken(token, (problem) => say("timestamp.authorityTokenMalformed", { tsa, problem }));
  checkTokenMatches(info, req, tsa);
  return { token, genTime: info.genTime, serial: info.serial, policy: info.policy };
}

function parseTsaUrl(tsaUrl: string): URL {
  let url: URL;
  try {
    url = new URL(tsaUrl);
  } catch {
    throw new Invalid(say("timestamp.urlInvalid", { url: JSON.stringify(tsaUrl) }), "tsaUrl");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Invalid(say("timestamp.urlProtocol", { protocol: url.protocol }), "tsaUrl");
  }
  if (url.username || url.password) {
    throw new Invalid(say("timestamp.urlCredentials"), "tsaUrl");
  }
  return url;
}

function networkReason(err: unknown): string {
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  if (cause && typeof cause === "object") {
    const c = cause as { code?: unknown; message?: unknown };
    if (typeof c.code === "string") return c.code;
    if (typeof c.message === "string") return c.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Checks the HTTP envelope and reads the body, refusing more than maxBytes. */
async function readBounded(res: Response, tsa: string, maxBytes: number, timeoutMs: number, signal: AbortSignal): Promise<Buffer> {
  const refuse = async (message: Said): Promise<never> => {
    await res.body?.cancel().catch(() => undefined);
    throw new Invalid(message);
  };
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get("location");
    return refuse(to ? say("timestamp.redirectedTo", { tsa, to }) : say("timestamp.redirected", { tsa }));
  }
  if (res.status !== 200) return refuse(say("timestamp.httpStatus", { tsa, status: `${res.status} ${res.statusText}`.trimEnd() }));
  const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/timestamp-reply") {
    return refuse(type ? say("timestamp.contentType", { tsa, type }) : say("timestamp.noContentType", { tsa }));
  }
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return refuse(say("timestamp.replyDeclaredTooLarge", { tsa, bytes: declared, max: maxBytes }));
  if (!res.body) return refuse(say("timestamp.emptyReply", { tsa }));

  const chunks: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Invalid(say("timestamp.replyTooLarge", { tsa, max: maxBytes }));
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof Invalid) throw err;
    if (signal.aborted) throw new Invalid(say("timestamp.replyUnfinished", { tsa, ms: timeoutMs }));
    throw new Invalid(say("timestamp.connectionFailed", { tsa, problem: networkReason(err) }));
  }
  if (total === 0) throw new Invalid(say("timestamp.emptyReply", { tsa }));
  return Buffer.concat(chunks);
}

/** Reads a TimeStampResp; returns the token if the status grants one, else says why not. */
function checkReply(der: Buffer, tsa: string): Buffer {
  return asInvalid((problem) => say("timestamp.replyMalformed", { tsa, problem }), () => {
    const resp = new Fields(readDer(der), "TimeStampResp");
    const statusInfo = new Fields(resp.next(Tag.SEQUENCE, "status"), "PKIStatusInfo");
    const status = readInteger(statusInfo.next(Tag.INTEGER, "status"), "PKIStatus");
    const textNode = statusInfo.optional(Tag.SEQUENCE);
    const failNode = statusInfo.optional(Tag.BIT_STRING);
    statusInfo.end();
    const tokenNode = resp.optional(Tag.SEQUENCE);
    resp.end();
    if (status !== 0n && status !== 1n) {
      const name = STATUS_NAMES[Number(status)] ?? `status ${status}`;
      const details = [...failureNames(failNode), ...freeText(textNode)];
      throw new Invalid(details.length ? say("timestamp.notGrantedWhy", { tsa, status: name, details: details.join("; ") }) : say("timestamp.notGranted", { tsa, status: name }));
    }
    if (!tokenNode) throw new Invalid(say("timestamp.noToken", { tsa }));
    return Buffer.from(tokenNode.der);
  });
}

function failureNames(node: DerNode | undefined): string[] {
  if (!node || node.value.length < 1) return [];
  const unused = node.value[0] as number;
  const bits = node.value.subarray(1);
  const out: string[] = [];
  for (let i = 0; i < bits.length * 8 - unused; i++) {
    if (((bits[i >> 3] as number) >> (7 - (i & 7))) & 1) out.push(FAILURE_NAMES[i] ?? `failure bit ${i}`);
  }
  return out;
}

function freeText(node: DerNode | undefined): string[] {
  if (!node) return [];
  return childrenOf(node).map((n) => JSON.stringify(readString(n, "PKIFreeText")));
}

interface ParsedToken extends TimestampInfo {
  hashOid: string;
  nonce?: bigint;
  certificateCount: number;
}

/** Runs a DER reading step, turning malformed input into one Invalid sentence naming what was being read. */
function asInvalid<T>(said: (problem: string) => Said, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DerError) throw new Invalid(said(err.message));
    throw err;
  }
}

function parseToken(token: Buffer, said: (problem: string) => Said): ParsedToken {
  return asInvalid(said, () => {
    const contentInfo = new Fields(readDer(token), "ContentInfo");
    const contentType = readOid(contentInfo.next(Tag.OID, "contentType"), "contentType");
    if (contentType !== OID_SIGNED_DATA) throw new DerError(`its content type is ${contentType}, not CMS SignedData`);
    const signedDataNode = explicitInner(contentInfo.next(contextTag(0), "content"), "ContentInfo content");
    contentInfo.end();

    const sd = new Fields(signedDataNode, "SignedData");
    sd.next(Tag.INTEGER, "version");
    sd.next(Tag.SET, "digestAlgorithms");
    const encap = new Fields(sd.next(Tag.SEQUENCE, "encapContentInfo"), "EncapsulatedContentInfo");
    const certs = sd.optional(contextTag(0));
    sd.optional(contextTag(1));
    const signerInfos = childrenOf(sd.next(Tag.SET, "signerInfos"));
    sd.end();
    if (signerInfos.length === 0) throw new DerError("SignedData has no signer");

    const eType = readOid(encap.next(Tag.OID, "eContentType"), "eContentType");
    if (eType !== OID_TST_INFO) throw new DerError(`the signed content is ${eType}, not a TSTInfo`);
    const eContent = expect(explicitInner(encap.next(contextTag(0), "eContent"), "eContent"), Tag.OCTET_STRING, "eContent");
    encap.end();

    return { ...parseTstInfo(readDer(eContent.value)), certificateCount: certs ? childrenOf(certs).length : 0 };
  });
}

function parseTstInfo(node: DerNode): Omit<ParsedToken, "certificateCount"> {
  const f = new Fields(node, "TSTInfo");
  const version = readInteger(f.next(Tag.INTEGER, "version"), "TSTInfo version");
  if (version !== 1n) throw new DerError(`TSTInfo version is ${version}, not 1`);
  const policy = readOid(f.next(Tag.OID, "policy"), "policy");
  const imprint = new Fields(f.next(Tag.SEQUENCE, "messageImprint"), "MessageImprint");
  const alg = new Fields(imprint.next(Tag.SEQUENCE, "hashAlgorithm"), "AlgorithmIdentifier");
  const hashOid = readOid(alg.next(Tag.OID, "algorithm"), "hash algorithm");
  const params = alg.optional(Tag.NULL);
  if (params) readNull(params, "hash algorithm parameters");
  alg.end();
  const digest = Buffer.from(imprint.next(Tag.OCTET_STRING, "hashedMessage").value);
  imprint.end();
  const serial = readInteger(f.next(Tag.INTEGER, "serialNumber"), "serialNumber");
  const genTime = readGeneralizedTime(f.next(Tag.GENERALIZED_TIME, "genTime"), "genTime");
  f.optional(Tag.SEQUENCE); // accuracy
  const ordering = f.optional(Tag.BOOLEAN);
  if (ordering) readBoolean(ordering, "ordering");
  const nonceNode = f.optional(Tag.INTEGER);
  const tsaNode = f.optional(contextTag(0));
  f.optional(contextTag(1)); // extensions
  f.end();

  const info: Omit<ParsedToken, "certificateCount"> = {
    genTime,
    serial: formatSerial(serial),
    policy,
    hashAlgorithm: HASH_NAMES[hashOid] ?? hashOid,
    digest,
    hashOid,
  };
  if (nonceNode) info.nonce = readInteger(nonceNode, "nonce");
  if (tsaNode) info.tsaName = generalName(explicitInner(tsaNode, "tsa"));
  return info;
}

/** Hex with a "0x" prefix, two digits a byte, upper case: the form OpenSSL prints, so the two can be compared. */
function formatSerial(n: bigint): string {
  const mag = n < 0n ? -n : n;
  let hex = mag.toString(16).toUpperCase();
  if (hex.length % 2) hex = `0${hex}`;
  return `${n < 0n ? "-" : ""}0x${hex}`;
}

function generalName(node: DerNode): string {
  switch (node.tag) {
    case contextTag(1, false):
      return `email:${node.value.toString("latin1")}`;
    case contextTag(2, false):
      return `DNS:${node.value.toString("latin1")}`;
    case contextTag(6, false):
      return `URI:${node.value.toString("latin1")}`;
    case contextTag(4):
      return distinguishedName(explicitInner(node, "directoryName"));
    default:
      return `GeneralName [${node.tag & 0x1f}] ${node.der.toString("hex")}`;
  }
}

/** RFC 4514 string form: RDNs last-to-first, known attribute types by short name, others as dotted OID=#hex. */
function distinguishedName(name: DerNode): string {
  expect(name, Tag.SEQUENCE, "Name");
  const rdns = childrenOf(name).map((rdn) =>
    childrenOf(expect(rdn, Tag.SET, "RelativeDistinguishedName"))
      .map((atv) => {
        const f = new Fields(atv, "AttributeTypeAndValue");
        const type = readOid(f.next(Tag.OID, "type"), "attribute type");
        const valueNode = f.nextAny("value");
        f.end();
        const short = ATTRIBUTE_NAMES[type];
        let value: string;
        try {
          value = escapeDnValue(readString(valueNode, "attribute value"));
        } catch {
          value = `#${valueNode.der.toString("hex")}`;
        }
        return `${short ?? type}=${value}`;
      })
      .join("+"),
  );
  return rdns.reverse().join(",");
}

function escapeDnValue(s: string): string {
  return s
    .replace(/[\\",+;<>=]/g, (c) => `\\${c}`)
    .replace(/^([ #])/, "\\$1")
    .replace(/ $/, "\\ ")
    .replace(/\0/g, "\\00");
}

function checkTokenMatches(info: ParsedToken, req: TimestampRequest, tsa: string): void {
  if (info.hashOid !== OID_SHA256 || !info.digest.equals(req.digest)) {
    throw new IntegrityError(say("timestamp.otherImprint", { tsa, hashAlgorithm: info.hashAlgorithm, digest: info.digest.toString("hex"), sent: req.digest.toString("hex") }));
  }
  const sent = BigInt(`0x${req.nonce.toString("hex")}`);
  if (info.nonce === undefined) {
    throw new IntegrityError(say("timestamp.noNonce", { tsa }));
  }
  if (info.nonce !== sent) {
    throw new IntegrityError(say("timestamp.otherNonce", { tsa }));
  }
  if (info.certificateCount === 0) {
    throw new Invalid(say("timestamp.noCertificate", { tsa }));
  }
}

/** Reads a TimeStampToken (CMS ContentInfo → SignedData → TSTInfo). It does not verify the signature. */
export function parseTimestampToken(token: Buffer): TimestampInfo {
  const p = parseToken(token, (problem) => say("timestamp.tokenMalformed", { problem }));
  const out: TimestampInfo = { genTime: p.genTime, serial: p.serial, policy: p.policy, hashAlgorithm: p.hashAlgorithm, digest: p.digest };
  if (p.tsaName !== undefined) out.tsaName = p.tsaName;
  return out;
}

/**
 * Checks that a token's message imprint is the digest of `data` (e.g. that a stored token belongs to the stored
 * checkpoint note). Signature and chain are not checked here; see verifyTimestampWithOpenSSL.
 */
export function assertTimestampCovers(token: Buffer, data: Buffer): TimestampInfo {
  const info = parseTimestampToken(token);
  if (!getHashes().includes(info.hashAlgorithm)) {
    throw new Invalid(say("timestamp.hashAlgorithm", { hashAlgorithm: info.hashAlgorithm }));
  }
  const digest = createHash(info.hashAlgorithm).update(data).digest();
  if (!digest.equals(info.digest)) {
    throw new IntegrityError(
      say("timestamp.coversOther", { serial: info.serial, genTime: info.genTime, hashAlgorithm: info.hashAlgorithm, digest: info.digest.toString("hex"), actual: digest.toString("hex") }),
    );
  }
  return info;
}

/**
 * Verifies a token over `data` with `openssl ts -verify -token_in`, trusting only the CA certificate(s) in
 * `caFile`: OpenSSL checks the imprint, the CMS signature, the ESS signing-certificate binding, the chain to the
 * CA and that the TSA certificate has the critical timeStamping extended key usage. `attime` checks the chain as
 * of that moment (typically the token's genTime, once the TSA certificate has expired).
 */
export async function verifyTimestampWithOpenSSL(
  token: Buffer,
  data: Buffer,
  caFile: string,
  opts: { attime?: Date; untrustedFile?: string; timeoutMs?: number } = {},
): Promise<{ ok: boolean; output: string }> {
  if (!existsSync(caFile)) throw new NotFound(say("timestamp.caMissing", { caFile }));
  const dir = await mkdtemp(join(tmpdir(), "dalil-tsverify-"));
  try {
    const dataFile = join(dir, "data.bin");
    const tokenFile = join(dir, "token.tst");
    await writeFile(dataFile, data, { mode: 0o600 });
    await writeFile(tokenFile, token, { mode: 0o600 });
    const args = ["ts", "-verify", "-data", dataFile, "-in", tokenFile, "-token_in", "-CAfile", caFile];
    if (opts.untrustedFile) args.push("-untrusted", opts.untrustedFile);
    if (opts.attime) args.push("-attime", String(Math.floor(opts.attime.getTime() / 1000)));
    const { code, stdout, stderr } = await run("openssl", args, opts.timeoutMs ?? 30_000);
    const output = `${stdout}${stderr}`
      .split("\n")
      .filter((line) => !line.startsWith("Using configuration from"))
      .join("\n")
      .trim();
    return { ok: code === 0 && /^Verification: OK$/m.test(stdout), output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.once("error", (err: NodeJS.ErrnoException) => {
      reject(err.code === "ENOENT" ? new Invalid(say("timestamp.noOpenssl")) : err);
    });
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
