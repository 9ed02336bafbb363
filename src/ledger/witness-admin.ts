import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { writeDurably } from "../core/durable-files.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import { AddWitnessInput, RemoveWitnessInput, SetWitnessQuorumInput, type WitnessPolicyView } from "./contracts.ts";
import { parseCosignerVkey } from "./cosignature.ts";
import { custody } from "./events.ts";
import { secret } from "./openings.ts";
import { assertPolicyForLog, witnessPolicyFile } from "./witness-client.ts";
import { formatWitnessPolicy, parseWitnessPolicy, type PolicyGroup, type WitnessPolicy } from "./witness-policy.ts";

/**
 * The archive's witness policy edited by an administrator (the admin screen, `dalil witness-policy`): add or
 * remove a witness, set the quorum (one witness, none, or k of some witnesses and groups). Each edit reads the
 * policy file as it is, makes the new tlog-policy text, parses it back with the one parser (what is written is
 * what the archive will read), logs a custody event (what changed, counts and hashes; the witness's name only
 * as a commitment) and writes the file aside and renames it into place, inside the event's transaction: a write
 * that fails takes the event back. The running archive reads the new file at its next use (WitnessPolicyWatch).
 */

/** The group `set quorum k of …` writes; replaced by the next such quorum. */
const QUORUM_GROUP = "quorum";
const sha256Hex = (s: string): string => createHash("sha256").update(s).digest("hex");

interface Current {
  file: string;
  exists: boolean;
  policy: WitnessPolicy;
}

/** The policy in the file, or (no file yet) one that names this log and no witness. */
function current(ctx: Ctx): Current {
  const file = witnessPolicyFile(ctx.config);
  if (!existsSync(file)) {
    return { file, exists: false, policy: { logs: [{ vkey: ctx.tree.verifierKey, origin: ctx.tree.origin }], witnesses: [], groups: [], quorum: "none" } };
  }
  return { file, exists: true, policy: parseWitnessPolicy(readFileSync(file, "utf8"), file) };
}

function view(c: Current): WitnessPolicyView {
  return {
    file: c.file,
    exists: c.exists,
    witnesses: c.policy.witnesses.map((w) => ({ name: w.name, vkey: w.key.vkey, url: w.url ?? null })),
    groups: c.policy.groups.map((g) => ({ name: g.name, threshold: g.threshold, members: [...g.members] })),
    quorum: c.policy.quorum,
  };
}

export async function showWitnessPolicy(ctx: Ctx, actor: Actor): Promise<WitnessPolicyView> {
  ctx.policy.require(actor, "witness.manage");
  return view(current(ctx));
}

/** Writes `next` (checked by parsing its text) with its custody event, in one transaction. */
async function save(ctx: Ctx, actor: Actor, c: Current, next: WitnessPolicy, detail: Record<string, unknown>): Promise<WitnessPolicyView> {
  const text = formatWitnessPolicy(next, ["The archive's witnesses and quorum (C2SP tlog-policy), written by dalil; docs/witnesses.md."]);
  let parsed: WitnessPolicy;
  try {
    parsed = parseWitnessPolicy(text, c.file);
    assertPolicyForLog({ file: c.file, text, policy: parsed }, ctx.tree.allVerifierKeys(), ctx.tree.verifierKey);
  } catch (err) {
    throw new Invalid(say("witness.policyEdit", { problem: err instanceof Error ? err.message : String(err) }));
  }
  await ctx.db.transaction(async (tx) => {
    await ctx.log.append(tx, custody("witness policy change", actor, ctx.clock.now(), [], { ...detail, policy: sha256Hex(text), witnesses: parsed.witnesses.length, groups: parsed.groups.length }));
    writeDurably(c.file, text, 0o644);
  });
  return view({ file: c.file, exists: true, policy: parsed });
}

/** The groups but the one an earlier "k of" quorum wrote (unless another group uses it): a new quorum replaces it. */
const withoutQuorumGroup = (p: WitnessPolicy): PolicyGroup[] => p.groups.filter((g) => g.name !== QUORUM_GROUP || p.groups.some((o) => o.members.includes(QUORUM_GROUP)));

/** Whether the quorum or a group names this group. */
const usedElsewhere = (p: WitnessPolicy, group: string): boolean => p.quorum === group || p.groups.some((g) => g.members.includes(group));

const namesOf = (p: WitnessPolicy): Set<string> => new Set(["none", ...p.witnesses.map((w) => w.name), ...p.groups.map((g) => g.name)]);

export async function addWitness(ctx: Ctx, actor: Actor, sent: AddWitnessInput): Promise<WitnessPolicyView> {
  ctx.policy.require(actor, "witness.manage");
  const input = parseInput(AddWitnessInput, sent);
  const c = current(ctx);
  if (namesOf(c.policy).has(input.name)) throw new Conflict(say("witness.nameTaken", { name: input.name }));
  let key;
  try {
    key = parseCosignerVkey(input.vkey.trim());
  } catch (err) {
    throw new Invalid(say("witness.vkeyInvalid", { problem: (err as Error).message }), "vkey");
  }
  const same = c.policy.witnesses.find((w) => w.key.publicKey.equals(key.publicKey));
  if (same) throw new Conflict(say("witness.keyTaken", { name: same.name }));
  const url = input.url?.trim() || undefined;
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) throw new Invalid(say("witness.urlInvalid", { url }), "url");
  const next: WitnessPolicy = { ...c.policy, witnesses: [...c.policy.witnesses, { name: input.name, key, ...(url ? { url: url.replace(/\/+$/, "") } : {}) }] };
  return save(ctx, actor, c, next, { change: "witness added", witness: secret(input.name), key: sha256Hex(key.vkey) });
}

export async function removeWitness(ctx: Ctx, actor: Actor, sent: RemoveWitnessInput): Promise<WitnessPolicyView> {
  ctx.policy.require(actor, "witness.manage");
  const { name } = parseInput(RemoveWitnessInput, sent);
  const c = current(ctx);
  const w = c.policy.witnesses.find((x) => x.name === name);
  if (!w) throw new NotFound(say("witness.notInPolicy", { name }));
  if (c.policy.quorum === name) throw new Conflict(say("witness.isQuorum", { name }));
  // taken out of every group; a group of "all" stays all of the rest; a group left empty that nothing uses goes
  // with it; one left short of its threshold, or empty but in use, is refused
  const groups: PolicyGroup[] = [];
  for (const g of c.policy.groups) {
    if (!g.members.includes(name)) {
      groups.push(g);
      continue;
    }
    const members = g.members.filter((m) => m !== name);
    const threshold = g.threshold === g.members.length ? members.length : g.threshold;
    if (members.length === 0 && !usedElsewhere(c.policy, g.name)) continue;
    if (members.length === 0 || threshold > members.length) throw new Conflict(say("witness.leavesGroupShort", { name, group: g.name }));
    groups.push({ name: g.name, threshold, members });
  }
  const next: WitnessPolicy = { ...c.policy, witnesses: c.policy.witnesses.filter((x) => x !== w), groups };
  return save(ctx, actor, c, next, { change: "witness removed", witness: secret(name), key: sha256Hex(w.key.vkey) });
}

export async function setWitnessQuorum(ctx: Ctx, actor: Actor, sent: SetWitnessQuorumInput): Promise<WitnessPolicyView> {
  ctx.policy.require(actor, "witness.manage");
  const input = parseInput(SetWitnessQuorumInput, sent);
  const c = current(ctx);
  const names = namesOf(c.policy);
  if (input.quorum !== undefined) {
    if (!names.has(input.quorum)) throw new Invalid(say("witness.quorumUnknown", { name: input.quorum }), "quorum");
    const groups = input.quorum === QUORUM_GROUP ? c.policy.groups : withoutQuorumGroup(c.policy);
    return save(ctx, actor, c, { ...c.policy, groups, quorum: input.quorum }, { change: "quorum set", threshold: input.quorum === "none" ? 0 : 1 });
  }
  // k of some witnesses and groups: the group "quorum", made anew (the schema gives both with no quorum)
  const { threshold, members } = input as { threshold: number; members: string[] };
  const kept = withoutQuorumGroup(c.policy);
  const known = new Set([...c.policy.witnesses.map((w) => w.name), ...kept.map((g) => g.name)]);
  for (const m of members) if (!known.has(m)) throw new Invalid(say("witness.quorumUnknown", { name: m }), "members");
  if (new Set(members).size !== members.length) throw new Invalid(say("witness.quorumTwice"), "members");
  if (threshold > members.length) throw new Invalid(say("witness.quorumThreshold", { threshold, members: members.length }), "threshold");
  if (known.has(QUORUM_GROUP)) throw new Conflict(say("witness.quorumGroupTaken", { name: QUORUM_GROUP }));
  const groups = [...kept, { name: QUORUM_GROUP, threshold, members }];
  return save(ctx, actor, c, { ...c.policy, groups, quorum: QUORUM_GROUP }, { change: "quorum set", threshold, members: members.length });
}
