/**
 * Faults on purpose, in a harness anyone can rerun (`npm run chaos -- --kills 100 --seed 7`). Real `dalil`
 * processes (bin/dalil.js) work on one archive in PostgreSQL and a real S3 server while the harness breaks things:
 * SIGKILL of a random dalil process every few seconds (the ingest, the package build, the re-rank, a worker),
 * PostgreSQL stopped as by a crash and started again mid-ingest (a private cluster, never the machine's server),
 * the S3 server killed and started again, a worker whose clock is minutes off (libfaketime), and the data folder
 * on a full disk (a small tmpfs: writes really fail with ENOSPC). After the faults: nothing lost, nothing
 * doubled, `dalil verify` clean, every job done or failed with its reason, and every interrupted command either
 * resumed and said so or stopped with one sentence (never a stack trace). Exit status 1 when any of that fails.
 *
 * The randomness (which process, when) is seeded; the seed is printed, so a failing run can be run again.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { sql } from "kysely";
import { writeDemoCard, type DemoCardTruth } from "../src/archive/demo-card/index.ts";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { startS3rver, type S3rverHandle } from "../test/support/s3rver.ts";
import { freePort } from "../test/support/serve.ts";
import { prng } from "../src/families/synthetic.ts";

export const FAULTS = ["kill", "pg", "s3", "clock", "disk"] as const;
export type Fault = (typeof FAULTS)[number];

export interface ChaosOptions {
  kills: number;
  faults: readonly Fault[];
  seed: number;
  bodies: number;
  /** Milliseconds between kills: a random time between these two. */
  intervalMs: [number, number];
  /** A PostgreSQL URL to make a fresh schema in, when no PostgreSQL restart is asked for (default: a private cluster). */
  sharedPostgres?: string;
  /** Clock offset of the skewed worker, for libfaketime (e.g. "-3m"). */
  clockOffset: string;
  /** Rounds of the workload at least (default 2: the second ingests the other card), more until the kills are made. */
  minCycles?: number;
  log?: (line: string) => void;
  /** Stops the run: every dalil process is killed, none is started again, and runChaos rejects (a test's timeout). */
  signal?: AbortSignal;
}

export interface ChaosReport {
  seed: number;
  kills: number;
  killsByRole: Record<string, number>;
  pgRestarts: number;
  s3Restarts: number;
  clockSkewedWorker: string | null;
  /** What the worker whose clock was off said when it refused to start (null: it ran). */
  clockRefused: string | null;
  disk: { full: boolean; sentence: string | null; resumedAfterSpace: boolean } | null;
  runs: Record<string, { ok: number; killed: number; failed: number }>;
  jobs: { done: number; failed: { kind: string; error: string }[]; unfinished: { kind: string; status: string }[] };
  lost: number;
  doubled: string[];
  verify: { ok: boolean; text: string };
  /** What interrupted commands told the person who ran them: the distinct sentences, with how often. */
  sentences: Record<string, number>;
  stackTraces: string[];
  problems: string[];
  seconds: number;
}

const BIN = fileURLToPath(new URL("../bin/dalil.js", import.meta.url));


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A demo card: its folder, its truth, and the hash of truth.json (which lies on the card and is taken in too). */
interface Card {
  dir: string;
  truth: DemoCardTruth;
  truthSha256: string;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The dalil processes alive now, by role: what the killer picks from. */
class Processes {
  private readonly live = new Map<ChildProcess, string>();
  /** Set when the run ends, however it ends: no process is started after it, so no loop can go on alone. */
  closed = false;
  start(role: string, args: string[], env: Record<string, string>, wrap: string[] = []): { done: Promise<Run> } {
    if (this.closed) return { done: Promise.resolve({ code: null, signal: "SIGKILL", stdout: "", stderr: "" }) };
    const [cmd, ...pre] = wrap.length ? wrap : [process.execPath];
    const child = spawn(cmd!, [...(wrap.length ? [...pre, process.execPath] : []), BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    this.live.set(child, role);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<Run>((ok) =>
      child.once("close", (code, signal) => {
        this.live.delete(child);
        ok({ code, signal, stdout, stderr });
      }),
    );
    return { done };
  }
  pick(r: () => number): [ChildProcess, string] | null {
    const all = [...this.live.entries()].filter(([c]) => c.exitCode === null && c.signalCode === null);
    return all.length ? all[Math.floor(r() * all.length)]! : null;
  }
  stopAll(): void {
    for (const c of this.live.keys()) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  }
  close(): void {
    this.closed = true;
    this.stopAll();
  }
}

/** A private PostgreSQL cluster (the installed binaries, a temp dir, its own port) that may be crashed at will. */
async function privatePostgres(log: (s: string) => void): Promise<{ url: string; restart(): Promise<void>; stop(): Promise<void> }> {
  const bin = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"].find((d) => existsSync(join(d, "pg_ctl")));
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql/*/bin: run without the pg fault, or install them");
  const root = mkdtempSync(join(tmpdir(), "dalil-chaos-pg-"));
  chmodSync(root, 0o755);
  const data = join(root, "data");
  const port = await freePort();
  // initdb refuses to run as root: the cluster belongs to the postgres account when there is one
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]): void => {
    const cmd = asRoot ? "runuser" : args[0]!;
    const full = asRoot ? ["-u", "postgres", "--", ...args] : args.slice(1);
    const r = spawnSync(cmd, full, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr || r.stdout}`);
  };
  if (asRoot) spawnSync("chown", ["postgres", root]);
  run([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const start = (): void => run([join(bin, "pg_ctl"), "-D", data, "-l", join(root, "log"), "-w", "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=on`, "start"]);
  start();
  log(`private PostgreSQL on port ${port} in ${root}`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      // immediate: no checkpoint, no goodbye to the clients: what a crash or an OOM kill looks like
      run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
      await sleep(1500);
      start();
    },
    async stop() {
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

const STACK = /\n\s+at .+[:(]\d+:\d+\)?/;

/** A sentence the person reads: stderr's first line, or what a resumed command said on stdout. */
function sentence(r: Run): string {
  // dalil's own words start with "dalil:"; anything else on stderr is Node's or a library's (warnings)
  const err = r.stderr.split("\n").find((l) => l.startsWith("dalil:"));
  if (err) return err.trim();
  if (r.code !== 0 && r.stderr.trim()) return `(no sentence) ${r.stderr.trim().split("\n").at(-1)}`;
  const resumed = r.stdout.split("\n").find((l) => /resumed|interrupted/.test(l));
  return resumed ? resumed.trim().replace(/package \S+|job \S+|DATA\/\S+|\/\S+/g, "…") : "";
}

const REPORTS_CSV = [
  "ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks",
  "CH-1,محمد أحمد الخطيب,Mohammad Ahmad al-Khatib,أحمد,,M,1985,2012-05,Damascus,215,scar left forearm",
  "CH-2,خالد عمر الحلبي,Khaled Omar al-Halabi,عمر,,M,1979,2012-11,Aleppo,215,",
  "CH-3,سامر يوسف درويش,Samer Youssef Darwish,يوسف,,M,1991,2013-02,Homs,227,tattoo right arm",
  "CH-4,أحمد علي السيد,Ahmad Ali al-Sayyed,علي,,M,1988,2012-08,Damascus,215,",
  "CH-5,عمر حسن النجار,Omar Hassan al-Najjar,حسن,,M,1983,2013-01,Daraa,235,",
  "CH-6,يوسف محمود العلي,Youssef Mahmoud al-Ali,محمود,,M,1990,2012-12,Hama,215,scar right cheek",
].join("\n");

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const t0 = Date.now();
  const rand = prng(o.seed);
  const has = (f: Fault): boolean => o.faults.includes(f);
  const report: ChaosReport = {
    seed: o.seed, kills: 0, killsByRole: {}, pgRestarts: 0, s3Restarts: 0, clockSkewedWorker: null, clockRefused: null, disk: null, runs: {},
    jobs: { done: 0, failed: [], unfinished: [] }, lost: 0, doubled: [], verify: { ok: false, text: "" }, sentences: {}, stackTraces: [], problems: [], seconds: 0,
  };
  const procs = new Processes();
  const onAbort = (): void => procs.close();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const root = mkdtempSync(join(tmpdir(), "dalil-chaos-"));
  const cleanups: (() => Promise<void>)[] = [];
  try {
    o.signal?.throwIfAborted();
    // the cards: written once per seed and size, read-only inputs
    const cards: Card[] = [];
    for (const which of ["a", "b"]) {
      const dir = join(tmpdir(), `dalil-chaos-card-${o.bodies}-${o.seed}-${which}`);
      // resume: a card left half-drawn by a harness that was stopped is finished, not refused
      if (!existsSync(join(dir, "truth.json"))) await writeDemoCard(dir, { bodies: o.bodies, seed: `chaos-${o.seed}-${which}`, withFaults: false, resume: true });
      const text = readFileSync(join(dir, "truth.json"));
      cards.push({ dir, truth: JSON.parse(text.toString("utf8")) as DemoCardTruth, truthSha256: createHash("sha256").update(text).digest("hex") });
    }

    if (has("disk")) report.disk = await diskFull(root, cards[0]!, procs, report, log);

    // the database: a private cluster when it is to be crashed, else a fresh schema on the given server
    let pgc: Awaited<ReturnType<typeof privatePostgres>> | null = null;
    let baseUrl: string;
    if (has("pg") || !o.sharedPostgres) {
      pgc = await privatePostgres(log);
      cleanups.push(() => pgc!.stop());
      baseUrl = pgc.url;
    } else baseUrl = o.sharedPostgres;
    const schema = `chaos_${randomBytes(5).toString("hex")}`;
    const dbUrl = new URL(baseUrl);
    dbUrl.searchParams.set("schema", schema);
    if (!pgc) {
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: baseUrl });
        await c.connect();
        await c.query(`drop schema if exists "${schema}" cascade`);
        await c.end();
      });
    }
    const s3: S3rverHandle = await startS3rver();
    cleanups.push(() => s3.stop());
    const data = join(root, "archive");
    const env: Record<string, string> = { DALIL_DATABASE_URL: dbUrl.toString(), DALIL_BLOBS_URL: s3.urlFor("chaos"), ...s3.env, NODE_ENV: "production" };
    Object.assign(process.env, s3.env);

    const attempt = async (role: string, args: string[], wrap: string[] = []): Promise<Run> => {
      const r = await procs.start(role, [...args, "--data", data], env, wrap).done;
      const tally = (report.runs[role] ??= { ok: 0, killed: 0, failed: 0 });
      if (r.signal === "SIGKILL") tally.killed++;
      else if (r.code === 0) tally.ok++;
      else tally.failed++;
      const said = r.signal ? "" : sentence(r);
      log(`  ${role}: ${r.signal ?? `exit ${r.code}`}${r.code ? ` — ${said}` : ""}`);
      if (STACK.test(r.stderr)) report.stackTraces.push(`${role}: ${r.stderr.slice(0, 600)}`);
      if (said && (r.code !== 0 || /resumed|interrupted/.test(said))) report.sentences[`${role}: ${said}`] = (report.sentences[`${role}: ${said}`] ?? 0) + 1;
      return r;
    };
    /** Runs a command until it succeeds: a killed or failed run is run again (after a pause when it failed). */
    const untilDone = async (role: string, args: string[], accept: (r: Run) => boolean = (r) => r.code === 0): Promise<Run> => {
      for (let i = 0; ; i++) {
        if (procs.closed) throw new Error(`stopped while ${role} was to run`);
        const r = await attempt(role, args);
        if (accept(r)) return r;
        if (i > 400) throw new Error(`${role} never succeeded: ${r.stderr}`);
        if (!r.signal) await sleep(1000);
      }
    };

    const init = await attempt("init", ["init"]);
    if (init.code !== 0) throw new Error(`dalil init: ${init.stderr}`);
    const csv = join(root, "reports.csv");
    writeFileSync(csv, REPORTS_CSV);

    // workers: one on the true clock, one minutes off (libfaketime), each started again when killed
    let stopping = false;
    const faketime = has("clock") ? ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1"].find(existsSync) : undefined;
    if (has("clock") && !faketime) report.problems.push("clock fault asked for but libfaketime is not installed (apt-get install faketime)");
    const workerLoops = [null, faketime ? o.clockOffset : null].map(async (offset, i) => {
      if (offset) report.clockSkewedWorker = `worker ${i + 1}, clock ${offset}`;
      const wrap = offset ? ["env", `LD_PRELOAD=${faketime}`, `FAKETIME=${offset}`, "FAKETIME_DONT_FAKE_MONOTONIC=1"] : [];
      while (!stopping && !procs.closed) {
        const r = await attempt(offset ? "worker (clock off)" : "worker", ["worker"], wrap);
        // a worker whose clock is off refuses to start (its leases would be misread): said once, not retried
        if (offset && r.code !== 0 && !r.signal && /clock is \d+ s (ahead of|behind) the database/.test(r.stderr)) {
          report.clockRefused = sentence(r);
          break;
        }
        if (!stopping && !r.signal) await sleep(1000);
      }
    });

    // the workload: ingest a card, build a package, import reports, re-rank; again until the kills are done
    let step = "";
    let cycles = 0;
    // the cards taken in to the end: what the archive must hold (one round takes in only the first)
    const ingested = new Set<Card>();
    let pgDone = !has("pg");
    let s3Done = !has("s3");
    const shas = cards[0]!.truth.photos.slice(0, 5).map((p) => p.sha256);
    const workload = (async () => {
      // another round while kills are to be made or a scheduled fault has not found its moment yet
      for (let i = 0; i === 0 || (has("kill") && (report.kills < o.kills || !pgDone || !s3Done)) || i < (o.minCycles ?? 2); i++) {
        const card = cards[i % 2]!;
        step = "ingest";
        await untilDone("ingest", ["ingest", card.dir, "--source", `chaos card ${i % 2 ? "b" : "a"}`]);
        ingested.add(card);
        step = "package";
        await untilDone("package build", ["package", "build", "--sha256", ...shas, "--recipient", "Chaos prosecutor", "--purpose", "fault harness", "--out", join(root, `package-${i}`)]);
        step = "import";
        // all or nothing: a run killed after its commit finds the refs taken (exit 2), which is the import done
        if (i === 0) await untilDone("families import", ["families", "import", csv], (r) => r.code === 0 || (r.code === 2 && /CH-1/.test(r.stdout + r.stderr)));
        step = "rerank";
        await untilDone("families match", ["families", "match", "--top", "3"]);
        cycles++;
      }
      step = "done";
    })();

    // the killer and the scheduled faults
    const killer = (async () => {
      if (!has("kill")) return;
      while (step !== "done" && !procs.closed) {
        await sleep(o.intervalMs[0] + rand() * (o.intervalMs[1] - o.intervalMs[0]));
        if (step === "done" || procs.closed) break;
        if (report.kills < o.kills) {
          const picked = procs.pick(rand);
          if (picked && picked[0].kill("SIGKILL")) {
            report.kills++;
            report.killsByRole[picked[1]] = (report.killsByRole[picked[1]] ?? 0) + 1;
          }
        }
        if (!pgDone && pgc && step === "ingest" && report.kills >= Math.floor(o.kills / 3)) {
          pgDone = true;
          log("restarting PostgreSQL (immediate stop) mid-ingest");
          await pgc.restart();
          report.pgRestarts++;
        }
        if (!s3Done && (step === "ingest" || step === "package") && report.kills >= Math.floor((2 * o.kills) / 3)) {
          s3Done = true;
          log(`stopping the S3 server during ${step}`);
          await s3.halt();
          await sleep(3000);
          await s3.restart();
          report.s3Restarts++;
        }
      }
    })();
    const progress = setInterval(() => log(`  … ${report.kills} kills, step ${step}, cycle ${cycles}`), 15_000);
    try {
      await Promise.all([workload, killer]);
    } finally {
      clearInterval(progress);
    }

    // every job to an end: workers run until nothing waits (a killed worker's lease runs out in a minute)
    const a = await openArchive(loadConfig({ data }, env));
    try {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const open = await a.db.db.selectFrom("jobs").select(["kind", "status"]).where("status", "in", ["queued", "running"]).where("kind", "!=", "families.watch-bodies").execute();
        if (!open.length || procs.closed) break;
        if (Date.now() > deadline) {
          report.jobs.unfinished = open;
          break;
        }
        await sleep(2000);
      }
      stopping = true;
      procs.stopAll();
      await Promise.all(workerLoops);
      o.signal?.throwIfAborted();
      await checkInvariants(a, [...ingested], report);
    } finally {
      await a.close();
    }
    const v = await attempt("verify", ["verify"]);
    report.verify = { ok: v.code === 0, text: (v.stdout + v.stderr).trim().split("\n").slice(0, 12).join("\n") };
    if (!report.verify.ok) report.problems.push(`dalil verify: ${report.verify.text}`);
  } finally {
    procs.close();
    o.signal?.removeEventListener("abort", onAbort);
    for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${String(e)}`));
    rmSync(root, { recursive: true, force: true });
  }
  if (report.stackTraces.length) report.problems.push(`${report.stackTraces.length} command(s) ended with a stack trace instead of a sentence`);
  if (report.jobs.unfinished.length) report.problems.push(`${report.jobs.unfinished.length} job(s) never finished`);
  if (report.jobs.failed.some((f) => !f.error)) report.problems.push("a job failed without a reason");
  if (report.lost) report.problems.push(`${report.lost} photo(s) lost`);
  if (report.doubled.length) report.problems.push(`doubled: ${report.doubled.join("; ")}`);
  if (has("kill") && report.kills < o.kills) report.problems.push(`only ${report.kills} of ${o.kills} kills were made`);
  report.seconds = Math.round((Date.now() - t0) / 1000);
  return report;
}

/** Nothing lost, nothing doubled, the log whole: read from the archive's own tables. */
async function checkInvariants(a: Awaited<ReturnType<typeof openArchive>>, cards: Card[], report: ChaosReport): Promise<void> {
  const db = a.db.db;
  const held = new Set((await db.selectFrom("originals").select("sha256").execute()).map((r) => r.sha256));
  const truth = new Set(cards.flatMap((c) => [...c.truth.photos.map((p) => p.sha256), c.truthSha256]));
  report.lost = [...truth].filter((s) => !held.has(s)).length;
  const strangers = [...held].filter((s) => !truth.has(s));
  if (strangers.length) report.doubled.push(`${strangers.length} original(s) the cards do not hold`);
  // one first ingestion (or quarantine) per original; every other sighting is a duplicate
  const firsts = await db
    .selectFrom("custody_events as e")
    .innerJoin("event_objects as o", "o.seq", "e.seq")
    .select(["o.sha256", sql<number>`count(*)`.as("n")])
    .where("e.type", "in", ["ingestion", "quarantine"])
    .where("e.outcome", "!=", "duplicate")
    .where("o.role", "=", "original")
    .groupBy("o.sha256")
    .having(sql`count(*)`, ">", 1)
    .execute();
  for (const f of firsts) report.doubled.push(`original ${f.sha256.slice(0, 12)}… taken in ${f.n} times`);
  // each source: one event per sighting, each entry of the card sighted once, no intake left running
  const sources = await db.selectFrom("sources").select(["id", "status", "files", "label"]).execute();
  for (const s of sources) {
    const sightings = await db.selectFrom("sightings").select(["entry_no"]).where("source_id", "=", s.id).execute();
    const entries = new Set(sightings.map((x) => x.entry_no));
    const events = await db
      .selectFrom("custody_events as e")
      .innerJoin("event_objects as o", "o.seq", "e.seq")
      .select(sql<number>`count(*)`.as("n"))
      .where("e.type", "in", ["ingestion", "quarantine"])
      .where("o.role", "=", "source")
      .where("o.sha256", "=", s.id)
      .executeTakeFirstOrThrow();
    if (s.status !== "complete") report.doubled.push(`source "${s.label}" left ${s.status}`);
    if (entries.size !== sightings.length) report.doubled.push(`source "${s.label}": an entry sighted twice`);
    if (Number(events.n) !== sightings.length) report.doubled.push(`source "${s.label}": ${events.n} intake events for ${sightings.length} sightings`);
    const card = cards.find((c) => c.truth.photos.length + 1 === sightings.length);
    if (!card) report.doubled.push(`source "${s.label}": ${sightings.length} sightings, not a whole card`);
  }
  // the log: numbered 0…n-1, no gap and no double
  const seqs = (await db.selectFrom("custody_events").select("seq").orderBy("seq").execute()).map((r) => Number(r.seq));
  if (!seqs.every((s, i) => s === i)) report.doubled.push("the custody log has a gap or a doubled number");
  const jobs = await db.selectFrom("jobs").select(["kind", "status", "error"]).execute();
  report.jobs.done = jobs.filter((j) => j.status === "done").length;
  report.jobs.failed = jobs.filter((j) => j.status === "failed").map((j) => ({ kind: j.kind, error: j.error ?? "" }));
}

/**
 * The data folder on a full disk: a tmpfs smaller than the card, an ingest that must stop with a sentence, then
 * more room and the same ingest resumed to the end. Needs root (mount); said so in the report when it cannot run.
 */
async function diskFull(root: string, card: Card, procs: Processes, report: ChaosReport, log: (s: string) => void): Promise<ChaosReport["disk"]> {
  const mnt = join(root, "small-disk");
  mkdirSync(mnt);
  const cardBytes = card.truth.photos.reduce((n, p) => n + p.bytes, 0);
  const small = Math.max(4, Math.ceil(cardBytes / 2 / 1e6));
  const m = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${small}m`, "tmpfs", mnt], { encoding: "utf8" });
  if (m.status !== 0) {
    report.problems.push(`disk-full fault could not run: mount -t tmpfs failed (${(m.stderr || "").trim()}); run as root`);
    return null;
  }
  log(`data folder on a ${small} MB tmpfs (the card holds ${(cardBytes / 1e6).toFixed(1)} MB)`);
  try {
    const data = join(mnt, "archive");
    const run = (args: string[]): Promise<Run> => procs.start("ingest (disk full)", [...args, "--data", data], { NODE_ENV: "production" }).done;
    const init = await run(["init"]);
    if (init.code !== 0) throw new Error(`init on the small disk: ${init.stderr}`);
    const first = await run(["ingest", card.dir]);
    const said = sentence(first);
    if (STACK.test(first.stderr)) report.stackTraces.push(`ingest on a full disk: ${first.stderr.slice(0, 600)}`);
    report.sentences[`ingest (disk full): ${said}`] = 1;
    const full = first.code !== 0;
    if (!full) report.problems.push("the ingest on a disk smaller than the card did not fail");
    spawnSync("mount", ["-o", `remount,size=${small * 4 + 64}m`, mnt]);
    const again = await run(["ingest", card.dir]);
    const resumed = again.code === 0 && /resumed/.test(again.stdout);
    if (again.code !== 0) report.problems.push(`the ingest after the disk was enlarged failed: ${again.stderr.trim()}`);
    else report.sentences[`ingest (disk full): ${sentence(again) || again.stdout.trim().split("\n")[0]}`] = 1;
    const v = await run(["verify"]);
    if (v.code !== 0) report.problems.push(`verify after the full disk: ${(v.stdout + v.stderr).trim().slice(0, 400)}`);
    const files = /(\d+) files: (\d+) ingested, (\d+) duplicates, (\d+) quarantined/.exec(again.stdout);
    if (files && Number(files[1]) !== card.truth.photos.length + 1) report.problems.push(`the resumed ingest counted ${files[1]} files, the card holds ${card.truth.photos.length + 1}`);
    return { full, sentence: said, resumedAfterSpace: resumed };
  } finally {
    spawnSync("umount", ["-l", mnt]);
  }
}

export function printReport(r: ChaosReport, opts: Pick<ChaosOptions, "kills" | "faults">): string {
  const lines = [
    `chaos: seed ${r.seed}, faults ${opts.faults.join(",")}, ${r.seconds} s`,
    `  kills (SIGKILL):     ${r.kills} of ${opts.kills} — ${Object.entries(r.killsByRole).map(([k, n]) => `${k} ${n}`).join(", ")}`,
    `  PostgreSQL restarts: ${r.pgRestarts}   S3 restarts: ${r.s3Restarts}   clock: ${r.clockSkewedWorker ?? "—"}${r.clockRefused ? ` (refused to start: ${r.clockRefused})` : ""}`,
    `  disk full:           ${r.disk ? `${r.disk.full ? "ingest stopped" : "NOT stopped"}; ${r.disk.resumedAfterSpace ? "resumed to the end after room was made" : "NOT resumed"}` : "—"}`,
    `  runs:                ${Object.entries(r.runs).map(([k, v]) => `${k} ${v.ok} ok/${v.killed} killed/${v.failed} failed`).join("; ")}`,
    `  jobs:                ${r.jobs.done} done, ${r.jobs.failed.length} failed${r.jobs.failed.length ? ` (${[...new Set(r.jobs.failed.map((f) => `${f.kind}: ${f.error.slice(0, 120)}`))].join(" | ")})` : ""}, ${r.jobs.unfinished.length} unfinished`,
    `  photos lost:         ${r.lost}`,
    `  doubled:             ${r.doubled.length}${r.doubled.length ? ` — ${r.doubled.join("; ")}` : ""}`,
    `  dalil verify:        ${r.verify.ok ? "clean" : "FINDINGS"} — ${r.verify.text.split("\n")[0]}`,
    `  what the commands said:`,
    ...Object.entries(r.sentences).sort((x, y) => y[1] - x[1]).map(([s, n]) => `    ${String(n).padStart(3)}×  ${s}`),
    ...r.stackTraces.map((s) => `  STACK TRACE: ${s}`),
    r.problems.length ? `  FAILED:\n${r.problems.map((p) => `    - ${p}`).join("\n")}` : "  every invariant held",
  ];
  return lines.join("\n");
}

function parseArgs(argv: string[]): ChaosOptions {
  const o: ChaosOptions = { kills: 100, faults: FAULTS, seed: Date.now() % 1_000_000, bodies: 24, intervalMs: [1500, 4000], clockOffset: "-3m" };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === "--kills") o.kills = Number(v);
    else if (k === "--seed") o.seed = Number(v);
    else if (k === "--bodies") o.bodies = Number(v);
    else if (k === "--clock") o.clockOffset = String(v);
    else if (k === "--interval") o.intervalMs = String(v).split("-").map(Number) as [number, number];
    else if (k === "--faults") {
      const f = String(v).split(",");
      const bad = f.filter((x) => !(FAULTS as readonly string[]).includes(x));
      if (bad.length) throw new Error(`unknown fault(s) ${bad.join(", ")}: choose from ${FAULTS.join(", ")}`);
      o.faults = f as Fault[];
    } else if (k === "--postgres") o.sharedPostgres = String(v);
    else if (k === "--help") {
      console.log(`npm run chaos -- [--kills N (100)] [--faults ${FAULTS.join(",")}] [--seed S] [--bodies N (24)] [--interval MIN-MAX ms (1500-4000)] [--clock -3m] [--postgres URL (without pg: a schema there instead of a private cluster)]`);
      process.exit(0);
    } else continue;
    i++;
  }
  return o;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const opts = parseArgs(process.argv.slice(2));
  console.error(`chaos: seed ${opts.seed} (rerun with --seed ${opts.seed})`);
  if (!process.env.DALIL_CLI_BUNDLE) {
    // the one-file build the tests use: each of the hundreds of starts is faster, and a kill hits dalil itself
    const { buildCliBundle } = await import("../scripts/build-cli-bundle.mjs");
    process.env.DALIL_CLI_BUNDLE = await buildCliBundle(process.cwd(), join(process.cwd(), "test-artifacts", `dalil-cli-chaos-${process.pid}.mjs`));
  }
  const r = await runChaos(opts);
  console.log(printReport(r, opts));
  process.exit(r.problems.length ? 1 : 0);
}
