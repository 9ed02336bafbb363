import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../src/core/config.ts";
import { operatorActor } from "../src/core/actor.ts";
import { openArchive } from "../src/app/open-archive.ts";
import type { Archive } from "../src/app/context.ts";
import { addUser, createApiToken } from "../src/access/index.ts";
import { JOB_RERANK } from "../src/families/index.ts";
import { BIN, dalil } from "../test/support/cli.ts";
import { freePort } from "../test/support/serve.ts";
import { startS3rver, type S3rverHandle } from "../test/support/s3rver.ts";
import { generateBenchData, generateReports, postgresUrl } from "./search.ts";
import { cachedCard, pct, row } from "./support.ts";

/**
 * Many people at once against the deployments of docs/operations.md, as real processes: the scale-out one (two
 * `dalil serve --no-worker` and two `dalil worker` on one PostgreSQL schema and one S3 bucket) and the embedded
 * default (one `dalil serve` on SQLite and local blobs). A synthetic catalogue (bench/search.ts's builder) and
 * missing-person reports; readers with API tokens of their own (read scopes), each a virtual user looping a mix
 * of searches and gallery pages with no think time, spread over the servers. Three phases in one run:
 * one user alone (the baseline of the idle phase), all users on an idle archive (the baseline of the busy
 * phase), all users while a card is ingested from the console, another is uploaded through the API and taken
 * in by a worker, and every report is re-ranked. p50/p95/p99 per kind, request rate, errors (5xx or no answer)
 * and 4xx apart, error lines in the processes' logs. The busy phase lasts until the work is done (at least as
 * long as the idle one). No new dependency: a load driver of fifty loops over fetch is a page of code and
 * measures exactly what is printed. Scale with BENCH_LOAD_USERS, BENCH_LOAD_SECONDS, BENCH_LOAD_BODIES, BENCH_LOAD_REPORTS,
 * BENCH_LOAD_CARD (bodies on each ingested card); BENCH_LOAD_EMBEDDED=1 adds the embedded
 * table (it takes as long again), BENCH_LOAD_SCALEOUT=0 leaves out the scale-out one.
 */

interface Proc {
  url?: string;
  child: ChildProcess;
  out: () => string;
  stop(): Promise<void>;
}

function startProc(args: string[], env: Record<string, string>, ready?: string): Promise<Proc> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const proc: Proc = {
    child,
    out: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  if (!ready) return Promise.resolve(proc);
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`dalil ${args.join(" ")} did not start in 90 s:\n${out}`)), 90_000);
    const check = (): void => {
      if (out.includes(ready)) {
        clearTimeout(timer);
        ok(proc);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`dalil ${args.join(" ")} exited (${code}):\n${out}`));
    });
  });
}

async function serve(data: string, env: Record<string, string>, worker: boolean): Promise<Proc> {
  const port = await freePort();
  const p = await startProc(["--data", data, "serve", ...(worker ? [] : ["--no-worker"]), "--port", String(port)], env, "serving");
  p.url = `http://127.0.0.1:${port}`;
  return p;
}

/** A small deterministic generator, one per virtual user. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = "search" | "gallery";

interface Tally {
  ms: Record<Kind, number[]>;
  errors: number;
  client: number;
  firstErrors: string[];
  seconds: number;
  /** The machine's one-minute load average when the phase ended (it is shared). */
  load: number;
}

interface Mix {
  searches: string[];
  photos: number;
}

/** A read mix: three searches in five (typical faceted queries, as bench/search.ts), two gallery pages. */
function nextRequest(r: () => number, mix: Mix): { kind: Kind; path: string } {
  if (r() < 0.6) return { kind: "search", path: `/api/search?${mix.searches[Math.floor(r() * mix.searches.length)]!}` };
  const offset = Math.floor(r() * Math.max(1, mix.photos - 100));
  return { kind: "gallery", path: `/api/gallery?offset=${offset}&limit=100` };
}

/**
 * `users` virtual users, each with its own token and server (round robin), each looping requests with no think
 * time until `until()` says stop. A request with no answer in 30 s, or with none at all, is an error like a 5xx.
 */
async function drive(urls: string[], tokens: string[], users: number, mix: Mix, until: (elapsed: number) => boolean): Promise<Tally> {
  const tally: Tally = { ms: { search: [], gallery: [] }, errors: 0, client: 0, firstErrors: [], seconds: 0, load: 0 };
  const t0 = performance.now();
  const note = (what: string): void => {
    if (tally.firstErrors.length < 5) tally.firstErrors.push(what);
  };
  await Promise.all(
    Array.from({ length: users }, async (_, u) => {
      const r = rng(1000 + u);
      const url = urls[u % urls.length]!;
      const headers = { authorization: `Bearer ${tokens[u % tokens.length]!}` };
      while (!until((performance.now() - t0) / 1000)) {
        const { kind, path } = nextRequest(r, mix);
        const t = performance.now();
        try {
          const res = await fetch(url + path, { headers, signal: AbortSignal.timeout(30_000) });
          const body = await res.text();
          if (res.status >= 500) {
            tally.errors++;
            note(`${res.status} ${path}: ${body.slice(0, 200)}`);
          } else if (res.status >= 400) {
            tally.client++;
            note(`${res.status} ${path}: ${body.slice(0, 200)}`);
          } else tally.ms[kind].push(performance.now() - t);
        } catch (err) {
          tally.errors++;
          note(`no answer ${path}: ${(err as Error).message}`);
        }
      }
    }),
  );
  tally.seconds = (performance.now() - t0) / 1000;
  tally.load = loadavg()[0]!;
  return tally;
}

const ppp = (s: number[]): string => `${pct(s, 50).toFixed(0)}/${pct(s, 95).toFixed(0)}/${pct(s, 99).toFixed(0)} ms`;
const rate = (t: Tally): number => (t.ms.search.length + t.ms.gallery.length + t.errors + t.client) / t.seconds;

function printPhases(phases: [string, Tally][]): void {
  const [[baseName, base], ...rest] = phases as [[string, Tally], ...[string, Tally][]];
  for (const kind of ["search", "gallery"] as const) {
    row(`${kind} p50/p95/p99, ${baseName}`, ppp(base.ms[kind]));
    let prev: [string, Tally] = [baseName, base];
    for (const [name, t] of rest) {
      const b = prev[1].ms[kind];
      row(`${kind} p50/p95/p99, ${name}`, ppp(t.ms[kind]), { label: `${prev[0]} p95`, value: `${pct(b, 95).toFixed(0)} ms`, ratio: pct(t.ms[kind], 95) / pct(b, 95) });
      prev = [name, t];
    }
  }
  let prev: [string, Tally] = [baseName, base];
  row(`requests/s, ${baseName}`, rate(base).toFixed(1));
  for (const [name, t] of rest) {
    row(`requests/s, ${name}`, rate(t).toFixed(1), { label: prev[0], value: rate(prev[1]).toFixed(1), ratio: rate(t) / rate(prev[1]) });
    prev = [name, t];
  }
  for (const [name, t] of phases) {
    const n = t.ms.search.length + t.ms.gallery.length + t.errors + t.client;
    row(`errors / 4xx, ${name}`, `${t.errors} / ${t.client}`);
    console.log(`    ${n} requests in ${t.seconds.toFixed(0)} s, load average ${t.load.toFixed(1)} at the end`);
    if (t.firstErrors.length) console.log(`    first: ${t.firstErrors.join(" | ")}`);
  }
}

/** The catalogue, the readers' tokens and an admin's token for the upload, written in-process. */
async function populate(a: Archive, users: number, bodies: number, reports: number): Promise<{ tokens: string[]; admin: string; mix: Mix }> {
  const t0 = performance.now();
  const { detaineeNos } = await generateBenchData(a, bodies, 5);
  const nReports = await generateReports(a, reports);
  const tokens: string[] = [];
  for (let i = 0; i < users; i++) {
    const { user } = await addUser(a, operatorActor(), { email: `reader-${i}@example.org`, role: "investigator" });
    tokens.push((await createApiToken(a, { kind: "user", id: user.id, role: "investigator" }, { name: "load", scopes: ["catalogue.read", "archive.read"] })).token);
  }
  const { user: adm } = await addUser(a, operatorActor(), { email: "uploader@example.org", role: "admin" });
  const admin = (await createApiToken(a, { kind: "user", id: adm.id, role: "admin" }, { name: "upload", scopes: ["archive.ingest"] })).token;
  const pick = (k: number): string => detaineeNos[Math.floor((k / 7) * detaineeNos.length)]!;
  const searches = [
    "",
    "q=%D9%85%D8%AD%D9%85%D8%AF", // محمد
    `q=${pick(1)}`,
    `q=${pick(4)}`,
    "branch=215&period=2012-05",
    "hospital=601&finding=burn&sort=-photo_date",
    `q=${encodeURIComponent("احمد الخطيب")}&branch=215&branch=227&hospital=601&hospital=tishreen`,
    `q=${encodeURIComponent("مح*")}`,
    "sort=photo_date&limit=50&facets=false",
  ];
  console.log(
    `  catalogue: ${bodies.toLocaleString("en")} bodies, ${(bodies * 5).toLocaleString("en")} photos, ${(nReports ?? 0).toLocaleString("en")} reports, ${users} readers with tokens, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { tokens, admin, mix: { searches, photos: bodies * 5 } };
}

/** One card uploaded file by file through the API with a token, then taken in by a worker: the upload's job id. */
async function upload(url: string, token: string, card: { dir: string; truth: { photos: { path: string }[] } }, step: (what: string) => void): Promise<string> {
  const headers = (type: string): Record<string, string> => ({ authorization: `Bearer ${token}`, "content-type": type });
  const up = await fetch(`${url}/api/uploads`, { method: "POST", headers: headers("application/json"), body: JSON.stringify({ kind: "folder", label: "load upload" }) });
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${await up.text()}`);
  const id = ((await up.json()) as { id: string }).id;
  for (const [i, photo] of card.truth.photos.entries()) {
    step(`uploading file ${i + 1} of ${card.truth.photos.length}`);
    const put = await fetch(`${url}/api/uploads/${id}/files?path=${encodeURIComponent(photo.path)}`, { method: "PUT", headers: headers("application/octet-stream"), body: readFileSync(join(card.dir, photo.path)) });
    if (put.status !== 200) throw new Error(`upload file: ${put.status} ${await put.text()}`);
  }
  step("asking for the ingest");
  const started = await fetch(`${url}/api/uploads/${id}/ingest`, { method: "POST", headers: headers("application/json"), body: "{}" });
  if (started.status !== 200) throw new Error(`upload ingest: ${started.status} ${await started.text()}`);
  return ((await started.json()) as { job: string }).job;
}

/** Waits for a job to end (or for `stop()`); a failed job is an error. */
async function jobDone(a: Archive, id: string, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const job = await a.jobs.get(id);
    if (job.status === "done") return;
    if (job.status === "failed") throw new Error(`job ${job.kind} failed: ${job.error}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("stopped");
}

interface Deployment {
  label: string;
  data: string;
  env: Record<string, string>;
  start(): Promise<{ servers: Proc[]; others: Proc[] }>;
}

async function runDeployment(d: Deployment, sizes: { users: number; seconds: number; bodies: number; reports: number; card: number }): Promise<void> {
  console.log(`\n# load: ${d.label} (load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} on ${availableParallelism()} cores)`);
  const init = await dalil(["init", "--data", d.data], d.env);
  if (init.code !== 0) throw new Error(`dalil init: ${init.stderr}`);
  const a = await openArchive(loadConfig({ data: d.data }, d.env));
  let procs: { servers: Proc[]; others: Proc[] } = { servers: [], others: [] };
  try {
    const { tokens, admin, mix } = await populate(a, sizes.users, sizes.bodies, sizes.reports);
    const [cardA, cardB] = [await cachedCard(sizes.card, "load-a"), await cachedCard(sizes.card, "load-b")];
    procs = await d.start();
    const urls = procs.servers.map((s) => s.url!);
    // warm each server (the facet index is built on a server's first search)
    await drive(urls, tokens, urls.length * 2, mix, (s) => s > 3);

    const alone = await drive(urls, tokens, 1, mix, (s) => s > Math.min(10, sizes.seconds / 2));
    const idle = await drive(urls, tokens, sizes.users, mix, (s) => s > sizes.seconds);

    // busy: the same readers while two cards are taken in and every report is re-ranked
    const t0 = performance.now();
    const since = (): number => (performance.now() - t0) / 1000;
    const work = new Map<string, { seconds?: number; job?: string; step?: string }>();
    const track = async (what: string, job: (w: { step?: string }) => Promise<string | null>): Promise<void> => {
      const w: { seconds?: number; job?: string; step?: string } = {};
      work.set(what, w);
      const id = await job(w);
      if (id) {
        w.job = id;
        await jobDone(a, id, () => backgroundDone);
      }
      w.seconds = since();
    };
    let backgroundDone = false;
    let failed: unknown = null;
    const background = Promise.all([
      track(
        "console ingest",
        () =>
          dalil(["ingest", cardA.dir, "--data", d.data, "--source", "load console"], d.env).then((r) => {
            if (r.code !== 0) throw new Error(`dalil ingest: ${r.stderr}`);
            return null;
          }),
      ),
      track("upload + worker ingest", (w) => upload(urls[urls.length - 1]!, admin, cardB, (what) => (w.step = `${what} at ${since().toFixed(0)} s`))),
      track("families re-rank", () => a.jobs.enqueue(null, JOB_RERANK, {}, { dedupeKey: `${JOB_RERANK}:all` })),
    ])
      .catch((err: unknown) => (failed = err))
      .finally(() => (backgroundDone = true));
    const cap = Math.max(120, sizes.seconds * 4);
    const busy = await drive(urls, tokens, sizes.users, mix, (s) => (backgroundDone && s > sizes.seconds) || s > cap);
    if (failed) throw failed as Error;
    printPhases([["1 user", alone], [`${sizes.users} users idle`, idle], [`${sizes.users} users busy`, busy]]);
    for (const [what, w] of work) {
      if (w.seconds !== undefined) row(`busy: ${what} done after`, `${w.seconds.toFixed(1)} s`);
      else {
        const job = w.job ? await a.jobs.get(w.job) : null;
        row(`busy: ${what} NOT done after`, `${busy.seconds.toFixed(0)} s`);
        if (w.step && !job) console.log(`    at the end: ${w.step}`);
        if (job) console.log(`    job ${job.kind}: ${job.status}, ${job.progress.done}/${job.progress.total}${job.progress.note ? ` ${job.progress.note}` : ""}`);
      }
    }
    const queue = await a.jobs.list({ limit: 500 });
    const waiting = queue.filter((j) => j.status === "queued" || j.status === "running");
    if (waiting.length) console.log(`    jobs queued or running at the end of the busy phase: ${[...new Set(waiting.map((j) => j.kind))].map((k) => `${k} × ${waiting.filter((j) => j.kind === k).length}`).join(", ")}`);
    backgroundDone = true;
    await background;
    const logged = [...procs.servers, ...procs.others].flatMap((p) => p.out().split("\n")).filter((l) => /"level":"error"|SQLITE_BUSY|timeout|too many clients|pool/i.test(l));
    row("server/worker error lines", String(logged.length));
    for (const l of logged.slice(0, 5)) console.log(`    ${l.slice(0, 300)}`);
    console.log(`  load average at the end ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  } finally {
    for (const p of [...procs.servers, ...procs.others]) await p.stop();
    await a.close();
  }
}

export async function benchLoad(): Promise<void> {
  const sizes = {
    users: Number(process.env.BENCH_LOAD_USERS ?? 50),
    seconds: Number(process.env.BENCH_LOAD_SECONDS ?? 30),
    bodies: Number(process.env.BENCH_LOAD_BODIES ?? 5000),
    reports: Number(process.env.BENCH_LOAD_REPORTS ?? 2000),
    card: Number(process.env.BENCH_LOAD_CARD ?? 6),
  };
  const root = mkdtempSync(join(tmpdir(), "dalil-bench-load-"));
  try {
    const url = await postgresUrl();
    if (process.env.BENCH_LOAD_SCALEOUT === "0") console.log("\n# load: the scale-out deployment skipped (BENCH_LOAD_SCALEOUT=0)");
    else if (!url) console.log("\n# load: PostgreSQL not reachable, the scale-out deployment is skipped");
    else {
      const schema = `load_${randomBytes(5).toString("hex")}`;
      const u = new URL(url);
      u.searchParams.set("schema", schema);
      let s3: S3rverHandle | null = null;
      try {
        s3 = await startS3rver();
        // the in-process archive reads the S3 credentials where the SDK looks for them
        Object.assign(process.env, s3.env);
        const env = { DALIL_DATABASE_URL: u.toString(), DALIL_BLOBS_URL: s3.urlFor("load"), ...s3.env };
        const data = join(root, "scale-out");
        await runDeployment(
          {
            label: "scale-out, 2 × serve --no-worker + 2 × worker, PostgreSQL + S3 (s3rver)",
            data,
            env,
            async start() {
              const servers = [await serve(data, env, false), await serve(data, env, false)];
              const others = [await startProc(["--data", data, "worker"], env), await startProc(["--data", data, "worker"], env)];
              return { servers, others };
            },
          },
          sizes,
        );
      } finally {
        await s3?.stop();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`drop schema if exists "${schema}" cascade`);
        await c.end();
      }
    }
    if (process.env.BENCH_LOAD_EMBEDDED === "1") {
      const data = join(root, "embedded");
      await runDeployment(
        {
          label: "embedded default, 1 × serve (its own worker), SQLite + local blobs",
          data,
          env: {},
          async start() {
            return { servers: [await serve(data, {}, true)], others: [] };
          },
        },
        sizes,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
