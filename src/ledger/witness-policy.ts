/**
 * C2SP tlog-policy: which logs, which witnesses, and the quorum of cosignatures a checkpoint needs.
 *
 *   log <vkey> [<url>]
 *   witness <name> <vkey> [<url>]           url: the witness's submission prefix (tlog-witness)
 *   group <name> all|any|<k> <name>...      members defined on earlier lines, each at most once, 1 <= k <= n
 *   quorum <name>|none                      exactly one
 *
 * Whitespace is spaces and tabs; blank lines and "#" comments are ignored (§ Structure). Names are opaque
 * strings. Pure: parse text, evaluate a set of cosigning witnesses.
 */
import { Invalid } from "../core/errors.ts";
import { parseCosignerVkey, verifyCosignatureLines, type CosignerKey } from "./cosignature.ts";
import { newVerifier } from "./note.ts";
import { say } from "../core/messages.ts";

export interface PolicyWitness {
  name: string;
  key: CosignerKey;
  url?: string;
}

export interface PolicyGroup {
  name: string;
  threshold: number;
  members: string[];
}

export interface WitnessPolicy {
  logs: { vkey: string; origin: string; url?: string }[];
  witnesses: PolicyWitness[];
  groups: PolicyGroup[];
  /** A witness or group name, or "none". */
  quorum: string;
}

/** Limits the spec recommends supporting at least; more is refused rather than slow. */
const MAX_ENTRIES = 256;

export function parseWitnessPolicy(text: string, source = "the witness policy"): WitnessPolicy {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) throw new Invalid(say("witness.policyControl", { source }));
  const logs: WitnessPolicy["logs"] = [];
  const witnesses: PolicyWitness[] = [];
  const groups: PolicyGroup[] = [];
  const names = new Set<string>(["none"]);
  let quorum: string | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const at = `${source}, line ${i + 1}`;
    const [keyword, ...args] = line.split(/[ \t]+/);
    const fail = (why: string): never => {
      throw new Invalid(`${at}: ${why}`);
    };
    if (witnesses.length + groups.length + logs.length > MAX_ENTRIES) fail(`more than ${MAX_ENTRIES} logs, witnesses and groups.`);
    switch (keyword) {
      case "log": {
        if (args.length < 1 || args.length > 2) fail('expected "log <vkey> [<url>]".');
        const v = (() => {
          try {
            return newVerifier(args[0]!);
          } catch (e) {
            return fail((e as Error).message);
          }
        })();
        if (logs.some((l) => l.vkey === args[0])) fail("this log is listed twice.");
        logs.push({ vkey: args[0]!, origin: v.name, ...(args[1] ? { url: args[1] } : {}) });
        break;
      }
      case "witness": {
        if (args.length < 2 || args.length > 3) fail('expected "witness <name> <vkey> [<url>]".');
        const [name, vkey, url] = args as [string, string, string | undefined];
        if (names.has(name)) fail(`the name ${JSON.stringify(name)} is already defined.`);
        let key: CosignerKey;
        try {
          key = parseCosignerVkey(vkey);
        } catch (e) {
          return fail((e as Error).message);
        }
        if (witnesses.some((w) => w.key.publicKey.equals(key.publicKey))) fail(`the witness ${name} has the same public key as another witness.`);
        if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) fail(`the witness URL ${JSON.stringify(url)} is not an http(s) URL.`);
        names.add(name);
        witnesses.push({ name, key, ...(url ? { url: url.replace(/\/+$/, "") } : {}) });
        break;
      }
      case "group": {
        if (args.length < 3) fail('expected "group <name> all|any|<k> <member>...".');
        const [name, k, ...members] = args as [string, string, ...string[]];
        if (names.has(name)) fail(`the name ${JSON.stringify(name)} is already defined.`);
        for (const m of members) {
          if (m === "none") fail('"none" cannot be a group member.');
          if (!names.has(m)) fail(`the member ${JSON.stringify(m)} is not a witness or group defined on an earlier line.`);
        }
        if (new Set(members).size !== members.length) fail("a member is listed twice.");
        const threshold = k === "all" ? members.length : k === "any" ? 1 : /^[1-9][0-9]*$/.test(k) ? Number(k) : fail(`the threshold ${JSON.stringify(k)} is not all, any or a number.`);
        if (threshold < 1 || threshold > members.length) fail(`the threshold ${threshold} must be between 1 and the ${members.length} member(s).`);
        names.add(name);
        groups.push({ name, threshold, members });
        break;
      }
      case "quorum": {
        if (args.length !== 1) fail('expected "quorum <name>".');
        if (quorum !== undefined) fail("a policy has exactly one quorum line; this is the second.");
        if (!names.has(args[0]!)) fail(`the quorum ${JSON.stringify(args[0])} is not a witness or group defined on an earlier line.`);
        quorum = args[0]!;
        break;
      }
      default:
        fail(`unknown line ${JSON.stringify(keyword)}; expected log, witness, group or quorum.`);
    }
  }
  if (quorum === undefined) throw new Invalid(say("witness.noQuorum", { source }));
  return { logs, witnesses, groups, quorum };
}

/** Whether the witnesses that cosigned (by policy name) satisfy the quorum. */
export function quorumMet(policy: WitnessPolicy, cosigned: ReadonlySet<string>): boolean {
  const memo = new Map<string, boolean>();
  const met = (name: string): boolean => {
    if (name === "none") return true;
    const known = memo.get(name);
    if (known !== undefined) return known;
    const group = policy.groups.find((g) => g.name === name);
    const r = group ? group.members.filter(met).length >= group.threshold : cosigned.has(name);
    memo.set(name, r);
    return r;
  };
  return met(policy.quorum);
}

/** The quorum in words, for a person reading a refusal. */
export function describeQuorum(policy: WitnessPolicy): string {
  const say = (name: string): string => {
    const g = policy.groups.find((x) => x.name === name);
    if (!g) return name;
    return `${g.threshold === g.members.length ? "all" : g.threshold === 1 ? "any" : g.threshold} of (${g.members.map(say).join(", ")})`;
  };
  return policy.quorum === "none" ? "no cosignature" : say(policy.quorum);
}

export interface QuorumCheck {
  /** Policy names of the witnesses whose cosignature on the checkpoint verifies. */
  cosignedBy: string[];
  met: boolean;
  /** Cosignature lines by a policy witness that do not verify (a damaged or forged line). */
  problems: string[];
}

/**
 * Checks a signed checkpoint note's cosignatures against a policy: which witnesses cosigned this exact body and
 * whether they make the quorum. The log's own signature is checked elsewhere (openCheckpoint with the log key).
 */
export function checkQuorum(note: string, policy: WitnessPolicy): QuorumCheck {
  const split = note.lastIndexOf("\n\n");
  if (split < 0) return { cosignedBy: [], met: quorumMet(policy, new Set()), problems: ["the checkpoint is not a signed note"] };
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  const cosignedBy: string[] = [];
  const problems: string[] = [];
  for (const w of policy.witnesses) {
    try {
      if (verifyCosignatureLines(text, block, w.key).length > 0) cosignedBy.push(w.name);
    } catch (e) {
      problems.push(`witness ${w.name}: ${(e as Error).message}`);
    }
  }
  return { cosignedBy, met: quorumMet(policy, new Set(cosignedBy)), problems };
}

/**
 * The policy as tlog-policy text, in the order the format needs (logs, witnesses, groups as given, quorum), under
 * a header saying who wrote it. Comments of a hand-written file are not kept.
 */
export function formatWitnessPolicy(policy: WitnessPolicy, header: string[] = []): string {
  return [
    ...header.map((h) => `# ${h}`),
    ...policy.logs.map((l) => ["log", l.vkey, l.url].filter(Boolean).join(" ")),
    ...policy.witnesses.map((w) => ["witness", w.name, w.key.vkey, w.url].filter(Boolean).join(" ")),
    ...policy.groups.map((g) => `group ${g.name} ${g.threshold === g.members.length ? "all" : g.threshold === 1 ? "any" : g.threshold} ${g.members.join(" ")}`),
    `quorum ${policy.quorum}`,
    "",
  ].join("\n");
}
