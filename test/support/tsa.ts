import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Fields, Tag, derInteger, derSequence, derTlv, derUtf8String, readDer, readInteger } from "../../src/ledger/asn1.ts";
import { encodeTimestampRequest } from "../../src/ledger/timestamp.ts";

const execFileP = promisify(execFile);

/**
 * How the test authority answers. "normal" is an honest RFC 3161 server (openssl ts -reply); the others
 * misbehave the ways a broken, misconfigured or hostile authority (or something in between) could:
 * - wrong-nonce:   a valid token for the same digest but another nonce (a replayed reply)
 * - wrong-imprint: a valid token with our nonce but for other data
 * - no-cert:       a valid token without the TSA certificate, although the request asked for it
 * - reject:        PKIStatus rejection with failInfo badAlg and a status text
 * - wrong-content-type: an honest reply labelled text/html
 * - oversize:      1 MiB of zeros, chunked (no Content-Length), labelled as a reply
 * - http-500:      an HTTP error
 * - hang:          accepts the request and never answers
 */
export type TsaMode = "normal" | "wrong-nonce" | "wrong-imprint" | "no-cert" | "reject" | "wrong-content-type" | "oversize" | "http-500" | "hang";

export interface TestTsa {
  /** POST RFC 3161 queries here. */
  url: string;
  /** PEM certificate of the CA that issued the TSA certificate: the only trust anchor a verifier needs. */
  caFile: string;
  /** PEM certificate of the TSA itself. */
  tsaCertFile: string;
  /** Number of queries received. */
  readonly requests: number;
  setMode(mode: TsaMode): void;
  stop(): Promise<void>;
}

export const TEST_TSA_POLICY = "1.2.3.4.1";

/** Whether the openssl command is available (tests skip without it, except under CI where they must run). */
export async function haveOpenssl(): Promise<boolean> {
  try {
    await execFileP("openssl", ["version"]);
    return true;
  } catch {
    return false;
  }
}

/**
 * A local RFC 3161 timestamp authority made with OpenSSL only: a CA (EC P-256, self-signed), a TSA key and
 * certificate issued by it (extendedKeyUsage critical,timeStamping — `openssl ts -reply` refuses to sign without
 * it), and an HTTP server on 127.0.0.1 that runs `openssl ts -reply` per query. `name` tells two authorities apart.
 */
export async function startTestTsa(opts: { mode?: TsaMode; name?: string } = {}): Promise<TestTsa> {
  const dir = mkdtempSync(join(tmpdir(), "dalil-tsa-"));
  const name = opts.name ?? "dalil test";
  try {
    await makeCertificates(dir, name);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  writeFileSync(join(dir, "serial"), "01\n");
  writeFileSync(
    join(dir, "tsa.cnf"),
    [
      "[ tsa ]",
      "default_tsa = tsa_config",
      "[ tsa_config ]",
      `serial = ${join(dir, "serial")}`,
      "crypto_device = builtin",
      `signer_cert = ${join(dir, "tsa.crt")}`,
      `signer_key = ${join(dir, "tsa.key")}`,
      "signer_digest = sha256",
      `default_policy = ${TEST_TSA_POLICY}`,
      "other_policies = 1.2.3.4.2",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ordering = no",
      "tsa_name = yes",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );

  let mode: TsaMode = opts.mode ?? "normal";
  let requests = 0;
  let seq = 0;
  // openssl ts -reply reads and rewrites the serial file: one reply at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const reply = (query: Buffer): Promise<Buffer> => {
    const run = queue.then(() => opensslReply(dir, query, ++seq));
    queue = run.catch(() => undefined);
    return run;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const query = await readBody(req, 64 * 1024);
    requests++;
    const m = mode;
    if (m === "hang") return;
    if (m === "http-500") {
      res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
      return;
    }
    if (m === "oversize") {
      res.writeHead(200, { "content-type": "application/timestamp-reply" });
      const chunk = Buffer.alloc(64 * 1024);
      for (let i = 0; i < 16; i++) res.write(chunk);
      res.end();
      return;
    }
    if (m === "reject") {
      const failInfoBadAlg = derTlv(Tag.BIT_STRING, Buffer.from([0x07, 0x80]));
      const statusInfo = derSequence(derInteger(2n), derSequence(derUtf8String("test authority refuses")), failInfoBadAlg);
      sendReply(res, derSequence(statusInfo));
      return;
    }
    let toSign = query;
    if (m === "wrong-nonce" || m === "wrong-imprint" || m === "no-cert") {
      const { digest, nonce } = readQuery(query);
      if (m === "wrong-nonce") toSign = encodeTimestampRequest(digest, randomBytes(8));
      if (m === "wrong-imprint") toSign = encodeTimestampRequest(createHash("sha256").update(randomBytes(16)).digest(), nonce);
      if (m === "no-cert") toSign = encodeTimestampRequest(digest, nonce, false);
    }
    const tsr = await reply(toSign);
    if (m === "wrong-content-type") {
      res.writeHead(200, { "content-type": "text/html" }).end(tsr);
      return;
    }
    sendReply(res, tsr);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
      res.end(String(err instanceof Error ? err.message : err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/tsa`,
    caFile: join(dir, "ca.crt"),
    tsaCertFile: join(dir, "tsa.crt"),
    get requests() {
      return requests;
    },
    setMode(m) {
      mode = m;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function sendReply(res: ServerResponse, body: Buffer): void {
  res.writeHead(200, { "content-type": "application/timestamp-reply", "content-length": body.length }).end(body);
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > max) throw new Error("query too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The digest and nonce of a TimeStampReq (the misbehaving modes re-use one and change the other). */
function readQuery(der: Buffer): { digest: Buffer; nonce: Buffer } {
  const f = new Fields(readDer(der), "TimeStampReq");
  f.next(Tag.INTEGER, "version");
  const imprint = new Fields(f.next(Tag.SEQUENCE, "messageImprint"), "MessageImprint");
  imprint.next(Tag.SEQUENCE, "hashAlgorithm");
  const digest = Buffer.from(imprint.next(Tag.OCTET_STRING, "hashedMessage").value);
  f.optional(Tag.OID);
  const nonceNode = f.optional(Tag.INTEGER);
  const nonceValue = nonceNode ? readInteger(nonceNode, "nonce") : 0n;
  const hex = nonceValue.toString(16);
  return { digest, nonce: Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex") };
}

async function opensslReply(dir: string, query: Buffer, n: number): Promise<Buffer> {
  const q = join(dir, `q${n}.tsq`);
  const r = join(dir, `r${n}.tsr`);
  await writeFile(q, query);
  try {
    await execFileP("openssl", ["ts", "-reply", "-config", join(dir, "tsa.cnf"), "-section", "tsa_config", "-queryfile", q, "-out", r]);
    return await readFile(r);
  } finally {
    await rm(q, { force: true });
    await rm(r, { force: true });
  }
}

async function makeCertificates(dir: string, name: string): Promise<void> {
  const cnf = join(dir, "certs.cnf");
  writeFileSync(
    cnf,
    [
      "[ req ]",
      "distinguished_name = dn",
      "prompt = no",
      "[ dn ]",
      `CN = ${name} CA`,
      "[ v3_ca ]",
      "basicConstraints = critical,CA:TRUE",
      "keyUsage = critical,keyCertSign,cRLSign",
      "subjectKeyIdentifier = hash",
      "[ tsa_ext ]",
      "basicConstraints = critical,CA:FALSE",
      "keyUsage = critical,digitalSignature",
      "extendedKeyUsage = critical,timeStamping",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid",
      "",
    ].join("\n"),
  );
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  const at = (f: string): string => join(dir, f);
  await execFileP("openssl", ["req", "-x509", "-new", "-config", cnf, "-extensions", "v3_ca", ...ec, "-keyout", at("ca.key"), "-out", at("ca.crt"), "-days", "3650", "-subj", `/CN=${name} CA`]);
  await execFileP("openssl", ["req", "-new", "-config", cnf, ...ec, "-keyout", at("tsa.key"), "-out", at("tsa.csr"), "-subj", `/O=${name}s/CN=${name} TSA`]);
  await execFileP("openssl", ["x509", "-req", "-in", at("tsa.csr"), "-CA", at("ca.crt"), "-CAkey", at("ca.key"), "-set_serial", "2", "-days", "3650", "-extfile", cnf, "-extensions", "tsa_ext", "-out", at("tsa.crt")]);
}
