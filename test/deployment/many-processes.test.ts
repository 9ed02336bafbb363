import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { dalil, BIN } from "../support/cli.ts";
import { demoCard } from "../support/archive.ts";
import { serveArchive, type ServedArchive } from "../support/mirror.ts";
import { startS3rver } from "../support/s3rver.ts";
import { readyUser, codeAt } from "../support/accounts.ts";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { consistencyProof, treeHash, verifyConsistency } from "../../src/ledger/merkle.ts";

/**
 * The scale-out deployment of docs/operations.md, as real processes: two `dalil serve` (without their own
 * workers) and two `dalil worker` sharing one PostgreSQL schema and one S3 bucket, while two ingests run at once.
 * What must hold across processes: a session begun on one server is honoured and ended on the other, failed
 * sign-ins are counted together, every job runs to an end once, the log has no gap and no double, and no two
 * signed checkpoints disagree (each server signs every ten seconds).
 */

async function ok(args: string[], env: Record<string, string>): Promise<string> {
  const r = await dalil(args, env);
  assert.equal(r.code, 0, `dalil ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function startWorker(data: string, env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, [BIN, "--data", data, "worker"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return { child, done: new Promise((ok_) => child.once("exit", (code) => ok_({ code, out }))) };
}

/** A sign-in over HTTP on one server: password, then the authenticator's code; the session cookie and CSRF token. */
async function signIn(url: string, email: string, password: string, code: () => string): Promise<{ cookie: string; csrf: string }> {
  const headers = { "content-type": "application/json", origin: url };
  const first = await fetch(`${url}/api/auth/login`, { method: "POST", headers, body: JSON.stringify({ email, password }) });
  assert.equal(first.status, 200, await first.clone().text());
  const cookie = /dalil_session=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")?.[1];
  assert.ok(cookie, "the password step sets a session cookie");
  const pending = (await (await fetch(`${url}/api/session`, { headers: { cookie: `dalil_session=${cookie}` } })).json()) as { csrfToken: string };
  const second = await fetch(`${url}/api/auth/second-factor`, { method: "POST", headers: { ...headers, cookie: `dalil_session=${cookie}`, "x-csrf-token": pending.csrfToken }, body: JSON.stringify({ code: code() }) });
  assert.equal(second.status, 200, await second.clone().text());
  const full = /dalil_session=([^;]+)/.exec(second.headers.get("set-cookie") ?? "")?.[1] ?? cookie;
  const session = (await (await fetch(`${url}/api/session`, { headers: { cookie: `dalil_session=${full}` } })).json()) as { stage: string; csrfToken: string };
  assert.equal(session.stage, "full");
  return { cookie: full, csrf: session.csrfToken };
}

const [, pgLeg] = await backends();

test("postgres + S3: two servers and two workers share one database and one bucket while two cards are ingested", { skip: pgLeg!.skip, timeout: 900_000 }, async () => {
  const s3 = await startS3rver();
  const fresh = await pgLeg!.backend.fresh();
  const env: Record<string, string> = { DALIL_DATABASE_URL: fresh.databaseUrl!, DALIL_BLOBS_URL: s3.urlFor("deployment"), ...s3.env };
  const data = join(fresh.dataDir, "archive");
  // the in-process archive below reads the S3 credentials where the SDK looks for them
  Object.assign(process.env, s3.env);
  const servers: ServedArchive[] = [];
  const workers: ReturnType<typeof startWorker>[] = [];
  try {
    await ok(["init", "--data", data], env);
    const a = await openArchive(loadConfig({ data }, env));
    let user: Awaited<ReturnType<typeof readyUser>>;
    try {
      user = await readyUser(a, "admin");
    } finally {
      await a.close();
    }
    const [cardA, cardB] = [await demoCard(4, false, "deploy-a"), await demoCard(4, false, "deploy-b")];
    for (let i = 0; i < 2; i++) servers.push(await serveArchive(data, env));
    for (let i = 0; i < 2; i++) workers.push(startWorker(data, env));
    const [one, two] = servers as [ServedArchive, ServedArchive];

    // a session begun on one server is the same session on the other
    let step = 0;
    const code = (): string => codeAt(user, new Date(Date.now() + 30_000 * step++));
    const s = await signIn(one.url, user.email, user.password, code);
    const onTwo = await fetch(`${two.url}/api/session`, { headers: { cookie: `dalil_session=${s.cookie}` } });
    assert.equal(((await onTwo.json()) as { stage: string }).stage, "full", "the other server knows the session");
    const as = (url: string, type = "application/json"): Record<string, string> => ({ cookie: `dalil_session=${s.cookie}`, "x-csrf-token": s.csrf, origin: url, "content-type": type });

    // two ingests at once: one card by the console, the other uploaded through both servers and taken in by a worker
    const byConsole = dalil(["ingest", cardA.dir, "--data", data], env);
    const up = await fetch(`${two.url}/api/uploads`, { method: "POST", headers: as(two.url), body: JSON.stringify({ kind: "folder", label: "uploaded card" }) });
    assert.equal(up.status, 200, await up.clone().text());
    const uploadId = ((await up.json()) as { id: string }).id;
    for (const [i, photo] of cardB.truth.photos.entries()) {
      const url = i % 2 ? two.url : one.url;
      const put = await fetch(`${url}/api/uploads/${uploadId}/files?path=${encodeURIComponent(photo.path)}`, { method: "PUT", headers: as(url, "application/octet-stream"), body: readFileSync(join(cardB.dir, photo.path)) });
      assert.equal(put.status, 200, await put.clone().text());
    }
    const started = await fetch(`${one.url}/api/uploads/${uploadId}/ingest`, { method: "POST", headers: as(one.url), body: "{}" });
    assert.equal(started.status, 200, await started.clone().text());
    const ingestJob = ((await started.json()) as { job: string }).job;
    const fixityJob = (JSON.parse(await ok(["jobs", "fixity", "--json", "--data", data], env)) as { id: string }).id;
    const consoleRun = await byConsole;
    assert.equal(consoleRun.code, 0, consoleRun.stderr);

    // both jobs run to an end, each taken by one worker or the other
    const deadline = Date.now() + 600_000;
    for (const id of [ingestJob, fixityJob]) {
      for (;;) {
        const job = (await (await fetch(`${(id === ingestJob ? two : one).url}/api/jobs/${id}`, { headers: as(one.url) })).json()) as { status: string; error: unknown; result: { ingested: number; duplicates: number; quarantined: number } | null };
        if (job.status === "done") {
          // a photo the console's ingest took in first is a duplicate here: the same bytes, held once
          if (id === ingestJob) assert.deepEqual([job.result!.ingested + job.result!.duplicates, job.result!.quarantined], [cardB.truth.photos.length, 0], "every uploaded photo was taken in");
          break;
        }
        assert.notEqual(job.status, "failed", JSON.stringify(job.error));
        assert.ok(Date.now() < deadline, `job ${id} still ${job.status}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }

    // signed out on one server, the session is gone on the other
    const out = await fetch(`${two.url}/api/auth/logout`, { method: "POST", headers: as(two.url), body: "{}" });
    assert.ok(out.status < 300, `sign-out on the second server: ${out.status}`);
    const after = (await (await fetch(`${one.url}/api/session`, { headers: { cookie: `dalil_session=${s.cookie}` } })).json()) as { signedIn: boolean };
    assert.equal(after.signedIn, false, "signed out on one server, the session is gone on the other");

    // wrong passwords spread over both servers are counted together: five, then the account is locked on both
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const url = i % 2 ? two.url : one.url;
      const r = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ email: user.email, password: `wrong ${i}` }) });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.equal(statuses[5], 429, `the sixth try, on the other server than the fifth, is throttled: ${statuses.join(",")}`);

    // appends and signatures racing from several processes besides the two servers' own every ten seconds
    await Promise.all(
      [1, 2, 3].map(async (n) => {
        for (let i = 0; i < 3; i++) {
          await ok(["mirror", "grant", `Custodian ${n}.${i}`, "--data", data], env);
          await ok(["log", "checkpoint", "--data", data], env);
        }
      }),
    );
    // and each server signs what it finds at least once more
    await new Promise((r) => setTimeout(r, 11_000));
    for (const w of workers) w.child.kill("SIGTERM");
    const ran = (await Promise.all(workers.map((w) => w.done))).map((r) => Number(/ran (\d+) job/.exec(r.out)?.[1] ?? NaN));
    assert.ok(ran.every((n) => Number.isInteger(n)), `each worker stopped cleanly and said what it ran: ${ran.join(", ")}`);
    assert.ok(ran.reduce((x, y) => x + y, 0) >= 2, `the workers ran the jobs between them (${ran.join(" and ")})`);
    for (const srv of servers.splice(0)) await srv.stop();

    // the log: no gap, no double, and every signed checkpoint consistent with every later one
    const b = await openArchive(loadConfig({ data }, env));
    try {
      const size = await b.log.size();
      const seqs = (await b.db.db.selectFrom("custody_events").select("seq").orderBy("seq").execute()).map((r) => Number(r.seq));
      assert.equal(seqs.length, size);
      assert.ok(seqs.every((s_, i) => s_ === i), "the events are numbered 0…n-1 with no gap and no double");
      const cps = await b.tree.checkpoints();
      assert.ok(cps.length >= 4, `several checkpoints were signed (${cps.length})`);
      assert.equal(new Set(cps.map((c) => c.size)).size, cps.length, "one checkpoint per size");
      const read = b.tree.reader();
      for (let i = 0; i < cps.length; i++) {
        assert.ok((await treeHash(cps[i]!.size, read)).equals(cps[i]!.root), `checkpoint ${cps[i]!.size} is the log's root at its size`);
        if (i > 0 && cps[i - 1]!.size > 0) {
          const proof = await consistencyProof(cps[i - 1]!.size, cps[i]!.size, read);
          assert.ok(verifyConsistency(cps[i - 1]!.size, cps[i]!.size, proof, cps[i - 1]!.root, cps[i]!.root));
        }
      }
    } finally {
      await b.close();
    }
    const verified = await dalil(["verify", "--data", data], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
    for (const srv of servers) await srv.stop();
    await fresh.cleanup();
    await s3.stop();
  }
});
