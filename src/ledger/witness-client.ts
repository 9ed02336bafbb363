/**
 * The archive as a client of its witnesses (C2SP tlog-witness v1.0.0): every new checkpoint goes to every
 * witness the policy gives a URL, in parallel, with a consistency proof from the size that witness last
 * cosigned; a 409 is answered once more with a proof from the size it says it holds. The cosignature lines
 * that verify are kept with the checkpoint and published with it; every refusal, wrong answer or silence is
 * an alarm row, so a split view shown to a witness is never lost in a log file.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../core/clock.ts";
import { Invalid } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { DatabaseHandle, Tx } from "../db/database.ts";
import { verifyCosignatureLines } from "./cosignature.ts";
import { parseWitnessPolicy, type PolicyWitness, type WitnessPolicy } from "./witness-policy.ts";
import { say } from "../core/messages.ts";

export const WITNESS_TIMEOUT_MS = 10_000;
const POLICY_FILE = "witnesses.policy";

export interface WitnessPolicySource {
  policy: WitnessPolicy;
  text: string;
  file: string;
}

export type PolicyConfig = { dataDir: string; witnessPolicyFile?: string };

/** Where the archive's witness policy is (or would be written): DALIL_WITNESS_POLICY, else <data>/witnesses.policy. */
export function witnessPolicyFile(config: PolicyConfig): string {
  return config.witnessPolicyFile ?? join(config.dataDir, POLICY_FILE);
}

/** The policy named by the config (DALIL_WITNESS_POLICY) or <data>/witnesses.policy; none if neither exists. A bad file is an error. */
export function loadWitnessPolicy(config: PolicyConfig): WitnessPolicySource | null {
  const file = witnessPolicyFile(config);
  if (!existsSync(file)) {
    if (config.witnessPolicyFile) throw new Invalid(say("witness.policyMissing", { file }), "DALIL_WITNESS_POLICY");
    return null;
  }
  const text = readFileSync(file, "utf8");
  return { policy: parseWitnessPolicy(text, file), text, file };
}

/**
 * A policy that names logs but not this one was written for another archive: its witnesses would refuse us.
 * `known` are this log's verifier keys (the current one and any retired by a rotation).
 */
export function assertPolicyForLog(source: WitnessPolicySource, known: readonly string[], current: string): void {
  const logs = source.policy.logs;
  if (logs.length && !logs.some((l) => known.includes(l.vkey))) {
    throw new Invalid(say("witness.policyOtherLog", { file: source.file, vkey: current }), "DALIL_WITNESS_POLICY");
  }
}

/**
 * The witness policy file as it is now, without a restart: each use looks at the file (one stat) and, when it was
 * replaced or changed (the admin screen, `dalil witness-policy`, an editor), reads it again. A changed file that
 * does not parse or names another log is not used: the policy read before stays in force and the process logs an
 * error; a removed file means no witnesses.
 */
export class WitnessPolicyWatch {
  private stamp: string | null = null;
  private client: WitnessClient | undefined;

  constructor(
    private readonly config: PolicyConfig,
    private readonly make: (source: WitnessPolicySource) => WitnessClient,
    private readonly check: (source: WitnessPolicySource) => void,
    private readonly logger?: Logger,
  ) {
    this.current();
  }

  current(): WitnessClient | undefined {
    const file = witnessPolicyFile(this.config);
    let stamp: string | null = null;
    try {
      const s = statSync(file);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      stamp = null;
    }
    if (stamp === this.stamp) return this.client;
    this.stamp = stamp;
    try {
      const source = stamp === null ? null : { file, text: readFileSync(file, "utf8") };
      const parsed = source ? { ...source, policy: parseWitnessPolicy(source.text, file) } : null;
      if (parsed) this.check(parsed);
      this.client = parsed ? this.make(parsed) : undefined;
    } catch (err) {
      this.logger?.log("error", "witness policy not reloaded: the policy read before stays in force", { file, error: err instanceof Error ? err.message : String(err) });
    }
    return this.client;
  }
}

export type WitnessOutcome =
  | { witness: string; outcome: "cosigned"; time: number }
  | { witness: string; outcome: "ahead"; heldSize: number }
  | { witness: string; outcome: "refused" | "unreachable" | "invalid-answer"; status?: number; detail: string }
  | { witness: string; outcome: "no-url" };

/** Proves the log's consistency from `from` (> 0) to `to`, as the tree can. */
export type ConsistencyProver = (from: number, to: number) => Promise<Buffer[]>;

export interface WitnessState {
  name: string;
  vkey: string;
  url?: string;
  lastCosigned: { size: number; time: number; receivedAt: string } | null;
  lastAlarm: { size: number; kind: string; status: number | null; detail: string; at: string } | null;
  alarms: number;
}

export class WitnessClient {
  constructor(
    private readonly dbh: DatabaseHandle,
    readonly source: WitnessPolicySource,
    private readonly clock: Clock,
    private readonly logger?: Logger,
    private readonly timeoutMs = WITNESS_TIMEOUT_MS,
  ) {}

  get policy(): WitnessPolicy {
    return this.source.policy;
  }

  /** Asks every witness with a URL (that has not already) to cosign the checkpoint of `size` whose note is `note`. */
  async cosign(size: number, note: string, prove: ConsistencyProver): Promise<WitnessOutcome[]> {
    const have = new Set(
      (await this.dbh.db.selectFrom("checkpoint_cosignatures").select("witness_vkey").where("size", "=", size).execute()).map((r) => r.witness_vkey),
    );
    return Promise.all(
      this.policy.witnesses.map((w) => (have.has(w.key.vkey) ? Promise.resolve<WitnessOutcome>({ witness: w.name, outcome: "cosigned", time: 0 }) : this.ask(w, size, note, prove))),
    );
  }

  private async ask(w: PolicyWitness, size: number, note: string, prove: ConsistencyProver): Promise<WitnessOutcome> {
    if (!w.url) return { witness: w.name, outcome: "no-url" };
    const held = await this.dbh.db
      .selectFrom("checkpoint_cosignatures")
      .select((eb) => eb.fn.max("size").as("size"))
      .where("witness_vkey", "=", w.key.vkey)
      .executeTakeFirst();
    let old = Math.min(Number(held?.size ?? 0), size);
    const text = note.slice(0, note.lastIndexOf("\n\n") + 1);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const proof = old > 0 && old < size ? await prove(old, size) : [];
        const body = `old ${old}\n${proof.map((h) => `${h.toString("base64")}\n`).join("")}\n${note}`;
        const res = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body, signal: AbortSignal.timeout(this.timeoutMs) });
        const answer = await res.text();
        if (res.status === 200) {
          let lines;
          try {
            lines = verifyCosignatureLines(text, answer, w.key);
          } catch (e) {
            return this.alarm(w, size, "invalid-answer", 200, `its answer is not a valid cosignature: ${(e as Error).message}`);
          }
          if (lines.length === 0) return this.alarm(w, size, "invalid-answer", 200, "its answer holds no cosignature by its key");
          const c = lines[0]!;
          await this.dbh.db
            .insertInto("checkpoint_cosignatures")
            .values({ size, witness_vkey: w.key.vkey, witness_name: w.name, line: c.line, time: c.time, received_at: this.clock.now().toISOString() })
            .onConflict((oc) => oc.columns(["size", "witness_vkey"]).doNothing())
            .execute();
          return { witness: w.name, outcome: "cosigned", time: c.time };
        }
        if (res.status === 409 && attempt === 0 && /^(0|[1-9][0-9]*)\n$/.test(answer)) {
          const theirs = Number(answer.trim());
          if (theirs === old) break; // same size, another root: a split view it refuses; fall through to the alarm
          if (theirs > size) {
            const ours = await this.dbh.db.selectFrom("log_state").select("size").where("id", "=", 1).executeTakeFirstOrThrow();
            if (theirs <= ours.size) return { witness: w.name, outcome: "ahead", heldSize: theirs };
            return this.alarm(w, size, "refused", 409, `it holds a checkpoint of size ${theirs}, larger than this log has ever been (${ours.size}): it was shown another log under this origin`);
          }
          old = theirs;
          continue;
        }
        return this.alarm(w, size, "refused", res.status, answer.trim().slice(0, 500) || `status ${res.status}`);
      }
      return this.alarm(w, size, "refused", 409, `it holds another checkpoint of size ${old} than this log's`);
    } catch (e) {
      const why = (e as Error).name === "TimeoutError" ? `no answer within ${this.timeoutMs / 1000} s` : (e as Error).message;
      return this.alarm(w, size, "unreachable", null, why);
    }
  }

  private async alarm(w: PolicyWitness, size: number, kind: "refused" | "unreachable" | "invalid-answer", status: number | null, detail: string): Promise<WitnessOutcome> {
    this.logger?.log("warn", "witness did not cosign", { witness: w.name, size, kind, status, detail });
    await this.dbh.db
      .insertInto("witness_alarms")
      .values({ id: randomUUID(), witness_vkey: w.key.vkey, witness_name: w.name, size, kind, status, detail, at: this.clock.now().toISOString() })
      .execute();
    return { witness: w.name, outcome: kind, ...(status === null ? {} : { status }), detail };
  }

  /** The cosignature lines kept for a checkpoint, of witnesses in the policy, in the policy's order. */
  async linesFor(size: number, tx: Tx = this.dbh.db): Promise<string[]> {
    const rows = await tx.selectFrom("checkpoint_cosignatures").select(["witness_vkey", "line"]).where("size", "=", size).execute();
    const byKey = new Map(rows.map((r) => [r.witness_vkey, r.line]));
    return this.policy.witnesses.map((w) => byKey.get(w.key.vkey)).filter((l): l is string => l !== undefined);
  }

  /** Each witness of the policy: the last checkpoint it cosigned and its last alarm. */
  async states(): Promise<WitnessState[]> {
    return Promise.all(
      this.policy.witnesses.map(async (w) => {
        const last = await this.dbh.db
          .selectFrom("checkpoint_cosignatures")
          .select(["size", "time", "received_at"])
          .where("witness_vkey", "=", w.key.vkey)
          .orderBy("size", "desc")
          .limit(1)
          .executeTakeFirst();
        const alarm = await this.dbh.db.selectFrom("witness_alarms").selectAll().where("witness_vkey", "=", w.key.vkey).orderBy("at", "desc").limit(1).executeTakeFirst();
        const count = await this.dbh.db
          .selectFrom("witness_alarms")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("witness_vkey", "=", w.key.vkey)
          .executeTakeFirstOrThrow();
        return {
          name: w.name,
          vkey: w.key.vkey,
          ...(w.url ? { url: w.url } : {}),
          lastCosigned: last ? { size: last.size, time: Number(last.time), receivedAt: last.received_at } : null,
          lastAlarm: alarm ? { size: alarm.size, kind: alarm.kind, status: alarm.status, detail: alarm.detail, at: alarm.at } : null,
          alarms: Number(count.n),
        };
      }),
    );
  }
}

/** The checkpoint note with the cosignature lines appended: still one signed note, verifiable by either key set. */
export function withCosignatures(note: string, lines: readonly string[]): string {
  return note + lines.join("");
}
