import { createHmac, timingSafeEqual } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "kysely";
import { systemClock, type Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { Conflict, DalilError, Forbidden, NotFound, Unauthenticated } from "../core/errors.ts";
import { english, say, type Said } from "../core/messages.ts";
import type { DatabaseHandle, Tx } from "./database.ts";
import type { JobsTable } from "./schema.ts";

/**
 * A durable job queue in the archive's own database: no extra service to run, and a job is enqueued in the same
 * transaction as the change that needs it. Workers claim a job with a lease; a worker that dies stops renewing
 * it and the job is claimed again when the lease runs out. On PostgreSQL claims use FOR UPDATE SKIP LOCKED, so
 * workers on several machines never run one job twice at once; on SQLite the single writer serialises claims.
 *
 * A job is not a command from the database: its payload carries a MAC (HMAC-SHA-256 under the archive's job key,
 * kept with its other keys) over its id, kind and payload, made when the archive queues it. A row written or
 * altered by anyone else who can write to the database fails the check and is refused, not run. Handlers still
 * treat the payload as data: paths are contained (core/contained.ts), the actor is read again from the accounts.
 */
export interface Job {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  status: "queued" | "running" | "done" | "failed";
  attempts: number;
  maxAttempts: number;
  progress: { done: number; total: number; note: string | null };
  result: unknown;
  error: string | null;
  /** The error as a message key with parameters, for the reader's language (null: the text only). */
  errorKey: string | null;
  errorParams: Record<string, string | number> | null;
  createdAt: string;
  updatedAt: string;
}

export interface JobContext {
  job: Job;
  progress(done: number, total: number, note?: string): Promise<void>;
  signal: AbortSignal;
}

export type JobHandler = (jc: JobContext) => Promise<unknown>;

export interface EnqueueOptions {
  dedupeKey?: string;
  maxAttempts?: number;
  runAfter?: Date;
}

const LEASE_MS = 60_000;
/**
 * Leases are written and read by each worker's own clock, so a worker whose clock is off by a good part of a
 * lease would take jobs others still run (ahead) or write leases others already see as run out (behind): the
 * same job would run twice. A worker therefore starts only when its clock is within this of the database's.
 */
export const MAX_CLOCK_SKEW_MS = 15_000;

/** Why a job was refused without running: no retry can change it. */
export class JobRefused extends DalilError {
  override readonly status = 409;
  override readonly code = "job_refused";
}

const FORGED: Said = say("job.forged");
export const FORGED_JOB = english(FORGED.key, FORGED.params);

/** A failure's English text and, when it was said as a key, the key and its parameters. */
function failure(err: unknown): Pick<JobsTable, "error" | "error_key" | "error_params"> {
  const message = err instanceof Error ? err.message : String(err);
  const said = err instanceof DalilError && err.key ? { key: err.key, params: JSON.stringify(err.params ?? {}) } : null;
  return { error: message, error_key: said?.key ?? null, error_params: said?.params ?? null };
}

function macOf(key: Buffer, id: string, kind: string, payload: string): string {
  return createHmac("sha256", key).update(`dalil.job.v1\u0000${id}\u0000${kind}\u0000${payload}`).digest("hex");
}

function macMatches(key: Buffer, row: Pick<JobsTable, "id" | "kind" | "payload" | "payload_mac">): boolean {
  if (!row.payload_mac || !/^[0-9a-f]{64}$/.test(row.payload_mac)) return false;
  return timingSafeEqual(Buffer.from(macOf(key, row.id, row.kind, row.payload), "hex"), Buffer.from(row.payload_mac, "hex"));
}

export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  readonly workerId = `${hostname()}:${process.pid}:${newId("w").slice(2, 10)}`;

  constructor(
    private readonly dbh: DatabaseHandle,
    private readonly clock: Clock,
    private readonly macKey: Buffer,
  ) {
    if (macKey.length !== 32) throw new Error("the job key must be 32 bytes");
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Enqueues a job; with a dedupeKey, a job already waiting or running under that key is returned instead. */
  async enqueue(tx: Tx | null, kind: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<string> {
    const db = tx ?? this.dbh.db;
    const now = this.clock.now().toISOString();
    if (opts.dedupeKey) {
      const existing = await db
        .selectFrom("jobs")
        .select(["id", "status"])
        .where("dedupe_key", "=", opts.dedupeKey)
        .executeTakeFirst();
      if (existing && (existing.status === "queued" || existing.status === "running")) return existing.id;
      if (existing) await db.updateTable("jobs").set({ dedupe_key: null }).where("id", "=", existing.id).execute();
    }
    const id = newId("job");
    const text = JSON.stringify(payload);
    await db
      .insertInto("jobs")
      .values({
        id,
        kind,
        payload: text,
        payload_mac: macOf(this.macKey, id, kind, text),
        status: "queued",
        attempts: 0,
        max_attempts: opts.maxAttempts ?? 3,
        run_after: (opts.runAfter ?? this.clock.now()).toISOString(),
        locked_by: null,
        locked_until: null,
        progress_done: 0,
        progress_total: 0,
        progress_note: null,
        result: null,
        error: null,
        created_at: now,
        updated_at: now,
        dedupe_key: opts.dedupeKey ?? null,
      })
      .execute();
    return id;
  }

  async get(id: string): Promise<Job> {
    const row = await this.dbh.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw new NotFound(say("record.notFound", { kind: "job" }));
    return toJob(row);
  }

  /** A job whose payload is the archive's own (its MAC checks), or JobRefused: for acts that trust a payload. */
  async authentic(id: string): Promise<Job> {
    const row = await this.dbh.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw new NotFound(say("record.notFound", { kind: "job" }));
    if (!macMatches(this.macKey, row)) throw new JobRefused(FORGED);
    return toJob(row);
  }

  async list(filter: { status?: string; kind?: string; kinds?: readonly string[]; limit?: number } = {}): Promise<Job[]> {
    if (filter.kinds?.length === 0) return [];
    let q = this.dbh.db.selectFrom("jobs").selectAll().orderBy("created_at", "desc").limit(filter.limit ?? 50);
    if (filter.status) q = q.where("status", "=", filter.status);
    if (filter.kind) q = q.where("kind", "=", filter.kind);
    if (filter.kinds) q = q.where("kind", "in", filter.kinds);
    return (await q.execute()).map(toJob);
  }

  /**
   * Deletes finished jobs of a recurring housekeeping kind (a watcher that re-enqueues itself) older than a
   * moment, so they do not pile up by the thousand a day. Failed ones are kept for the operator to read.
   */
  async forgetDone(kind: string, olderThan: Date): Promise<number> {
    const r = await this.dbh.db
      .deleteFrom("jobs")
      .where("kind", "=", kind)
      .where("status", "=", "done")
      .where("updated_at", "<", olderThan.toISOString())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Claims the oldest runnable job of a kind this worker handles, or a running job whose lease expired. */
  async claim(kinds: string[] = this.kinds()): Promise<Job | null> {
    if (kinds.length === 0) return null;
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + LEASE_MS).toISOString();
    return this.dbh.transaction(async (tx) => {
      let q = tx
        .selectFrom("jobs")
        .select("id")
        .where("kind", "in", kinds)
        .where((eb) =>
          eb.or([
            eb.and([eb("status", "=", "queued"), eb("run_after", "<=", nowIso)]),
            eb.and([eb("status", "=", "running"), eb("locked_until", "<", nowIso)]),
          ]),
        )
        .orderBy("run_after")
        .limit(1);
      if (this.dbh.dialect === "postgres") q = q.forUpdate().skipLocked();
      const candidate = await q.executeTakeFirst();
      if (!candidate) return null;
      const row = await tx
        .updateTable("jobs")
        .set({
          status: "running",
          locked_by: this.workerId,
          locked_until: until,
          attempts: sql<number>`attempts + 1`,
          updated_at: nowIso,
        })
        .where("id", "=", candidate.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toJob(row);
    });
  }

  async progress(id: string, done: number, total: number, note?: string): Promise<void> {
    const now = this.clock.now();
    await this.dbh.db
      .updateTable("jobs")
      .set({
        progress_done: done,
        progress_total: total,
        progress_note: note ?? null,
        locked_until: new Date(now.getTime() + LEASE_MS).toISOString(),
        updated_at: now.toISOString(),
      })
      .where("id", "=", id)
      .where("locked_by", "=", this.workerId)
      .execute();
  }

  private async finish(id: string, patch: Partial<JobsTable>): Promise<void> {
    await this.dbh.db
      .updateTable("jobs")
      .set({ ...patch, locked_by: null, locked_until: null, updated_at: this.clock.now().toISOString() })
      .where("id", "=", id)
      .where("locked_by", "=", this.workerId)
      .execute();
  }

  /**
   * Runs one claimed job to its end. A failure is retried with backoff until maxAttempts, then marked failed; a
   * refusal (a forged payload, an actor no longer allowed, a path outside the archive) fails at once.
   */
  async runOne(claimed: Job, signal: AbortSignal = new AbortController().signal): Promise<Job> {
    const handler = this.handlers.get(claimed.kind);
    if (!handler) throw new Error(`no handler for job kind ${claimed.kind}`);
    // the payload that runs is the stored one, checked now: never one handed in by the caller
    const row = await this.dbh.db.selectFrom("jobs").selectAll().where("id", "=", claimed.id).executeTakeFirst();
    if (!row) throw new NotFound(say("record.notFound", { kind: "job" }));
    if (!macMatches(this.macKey, row)) {
      await this.finish(row.id, { status: "failed", ...failure(new JobRefused(FORGED)) });
      return this.get(row.id);
    }
    const job: Job = { ...toJob(row), attempts: claimed.attempts };
    // One write at a time, each of the latest figures: handlers report from synchronous callbacks without
    // awaiting, and on PostgreSQL an earlier write could otherwise land after a later one (3 of 6 left shown
    // for a job that was done). The job ends only after its last write.
    let writes: Promise<void> = Promise.resolve();
    const writeProgress = (): Promise<void> => {
      const w = writes.then(() => this.progress(job.id, job.progress.done, job.progress.total, job.progress.note ?? undefined));
      writes = w.catch(() => {});
      return w;
    };
    const renew = setInterval(() => void writeProgress().catch(() => {}), LEASE_MS / 3);
    try {
      const result = await handler({
        job,
        signal,
        progress: (done, total, note) => {
          job.progress = { done, total, note: note ?? null };
          return writeProgress();
        },
      });
      await writes;
      await this.finish(job.id, { status: "done", result: JSON.stringify(result ?? null), error: null, error_key: null, error_params: null });
    } catch (err) {
      await writes;
      const refused = err instanceof JobRefused || err instanceof Forbidden || err instanceof Unauthenticated;
      if (!refused && job.attempts < job.maxAttempts) {
        const backoff = 1000 * 2 ** job.attempts;
        await this.finish(job.id, {
          status: "queued",
          ...failure(err),
          run_after: new Date(this.clock.now().getTime() + backoff).toISOString(),
        });
      } else {
        await this.finish(job.id, { status: "failed", ...failure(err) });
      }
    } finally {
      clearInterval(renew);
    }
    return this.get(job.id);
  }

  /** Works until the queue is empty (once) or until the signal aborts, polling when idle. */
  /**
   * Refuses to work when this machine's clock and the PostgreSQL server's differ by more than MAX_CLOCK_SKEW_MS
   * (on SQLite every worker shares one machine's clock; a test's own clock is not the machine's and is not checked).
   */
  async checkClock(): Promise<void> {
    if (this.dbh.dialect !== "postgres" || this.clock !== systemClock) return;
    const before = Date.now();
    const row = await sql<{ ms: string | number }>`select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms`.execute(this.dbh.db);
    const after = Date.now();
    const skew = (before + after) / 2 - Number(row.rows[0]!.ms);
    if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
      const seconds = Math.round(Math.abs(skew) / 1000);
      const allowed = MAX_CLOCK_SKEW_MS / 1000;
      throw new Conflict(skew > 0 ? say("job.clockAhead", { seconds, allowed }) : say("job.clockBehind", { seconds, allowed }));
    }
  }

  async work(opts: { once?: boolean; signal?: AbortSignal; pollMs?: number } = {}): Promise<number> {
    await this.checkClock();
    let ran = 0;
    const signal = opts.signal ?? new AbortController().signal;
    while (!signal.aborted) {
      const job = await this.claim();
      if (job) {
        await this.runOne(job, signal);
        ran++;
        continue;
      }
      if (opts.once) break;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
    }
    return ran;
  }
}

/** A job as shown over HTTP: no payload (it names paths, actors, recipients), and no path in its result. */
export type JobView = Omit<Job, "payload">;

export function jobView(job: Job): JobView {
  const { payload, ...rest } = job;
  void payload;
  const result = rest.result && typeof rest.result === "object" && !Array.isArray(rest.result)
    ? Object.fromEntries(Object.entries(rest.result as Record<string, unknown>).filter(([k, v]) => k !== "dir" && !(typeof v === "string" && v.startsWith("/"))))
    : rest.result;
  return { ...rest, result };
}

function toJob(row: JobsTable): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    status: row.status as Job["status"],
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    progress: { done: row.progress_done, total: row.progress_total, note: row.progress_note },
    result: row.result ? (JSON.parse(row.result) as unknown) : null,
    error: row.error,
    errorKey: row.error_key,
    errorParams: row.error_params ? (JSON.parse(row.error_params) as Record<string, string | number>) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
