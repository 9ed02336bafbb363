import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { checkProofBundle, consistencyProof, latestCheckpoint, logTiles, proveOriginal, timestampLatestCheckpoint, verifierKey, describeQuorum, witnessStates, cosignLatest, addWitness, removeWitness, setWitnessQuorum, showWitnessPolicy, type WitnessPolicyView } from "../ledger/index.ts";
import { globalOptions, positiveIntOption, print, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

export function registerLogCommands(program: Command): void {
  const log = program.command("log").description("the custody log: checkpoints, keys, proofs, tiles");

  log
    .command("checkpoint")
    .description("the latest signed checkpoint (signs one first if the log has grown)")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const cp = await latestCheckpoint(a, operatorActor(), { sign: true });
        print(opts, { size: cp.size, root: cp.root.toString("base64"), note: cp.published }, cp.published.replace(/\n$/, ""));
      });
    });

  log
    .command("timestamp")
    .description("ask the RFC 3161 authority (DALIL_TSA_URL) to timestamp the latest checkpoint, if it has no token yet")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const cp = await timestampLatestCheckpoint(a, operatorActor());
        print(opts, { size: cp.size, token: cp.timestampToken.toString("base64") }, `checkpoint ${cp.size} timestamped (${cp.timestampToken.length} byte token)`);
      });
    });

  log
    .command("key")
    .description("the verifier key (vkey) of this archive's log")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const key = verifierKey(a, operatorActor());
        print(opts, key, key.vkey);
      });
    });

  log
    .command("proof")
    .description("a tlog-proof of the event that recorded an original's arrival")
    .requiredOption("--sha256 <hex>", "the original's SHA-256")
    .option("--out <dir>", "also write proof.tlog-proof, event.json (the exact leaf bytes) and log.vkey into DIR")
    .action(async (o: { sha256: string; out?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const p = await proveOriginal(a, operatorActor(), o.sha256.toLowerCase());
        if (o.out) {
          mkdirSync(o.out, { recursive: true });
          writeFileSync(join(o.out, "proof.tlog-proof"), p.proof);
          writeFileSync(join(o.out, "event.json"), p.leaf);
          writeFileSync(join(o.out, "log.vkey"), `${verifierKey(a, operatorActor()).vkey}\n`);
        }
        print(opts, { index: p.seq, proof: p.proof, leaf: p.leaf.toString("utf8") }, p.proof.replace(/\n$/, ""));
      });
    });

  log
    .command("consistency")
    .description("a consistency proof between two signed checkpoints")
    .requiredOption("--from <n>", "size of the earlier checkpoint", positiveIntOption("--from"))
    .option("--to <m>", "size of the later checkpoint (default: the latest)", positiveIntOption("--to"))
    .action(async (o: { from: number; to?: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const p = await consistencyProof(a, operatorActor(), o);
        print(opts, { from: p.from.size, to: p.to.size, proof: p.text, fromNote: p.from.note, toNote: p.to.note }, p.text.replace(/\n$/, ""));
      });
    });

  log
    .command("tiles <dir>")
    .description("publish the log as static C2SP tlog-tiles (checkpoint + hash tiles) into DIR for monitors and witnesses")
    .option("--entries", "also write the entry bundles (the events themselves): for a custodians' copy, never a public mirror")
    .action(async (dir: string, o: { entries?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        // Hash tiles let anyone check the log only grows; entry bundles say what it holds, so they are opt-in.
        const { checkpoint: cp, tiles } = await logTiles(a, operatorActor(), { entries: o.entries });
        let n = 0;
        for await (const file of tiles) {
          const target = join(dir, ...file.path.split("/"));
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, file.bytes);
          n++;
        }
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "checkpoint"), cp.published);
        const what = o.entries ? "tiles and entry bundles" : "hash tiles (no entry bundles)";
        print(opts, { dir, size: cp.size, tiles: n, entries: Boolean(o.entries) }, `wrote checkpoint and ${n} ${what} for ${cp.size} events to ${dir}`);
      });
    });

  log
    .command("witnesses")
    .description("the witnesses of the policy (DALIL_WITNESS_POLICY or DATA/witnesses.policy): last cosignature and last alarm of each")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const w = await witnessStates(a, operatorActor());
        if (!w) {
          print(opts, { policy: null, witnesses: [] }, "no witness policy: put one at DATA/witnesses.policy or name it with DALIL_WITNESS_POLICY (docs/witnesses.md)");
          return;
        }
        const lines = w.witnesses.map((s) => {
          const cos = s.lastCosigned ? `cosigned size ${s.lastCosigned.size} at ${new Date(s.lastCosigned.time * 1000).toISOString()}` : "has cosigned nothing";
          const behind = s.lastCosigned && w.latestSize !== null && s.lastCosigned.size < w.latestSize ? ` (the latest checkpoint is ${w.latestSize})` : "";
          const alarm = s.lastAlarm ? `\n    ALARM (${s.alarms}): ${s.lastAlarm.kind}${s.lastAlarm.status ? ` ${s.lastAlarm.status}` : ""} at size ${s.lastAlarm.size}, ${s.lastAlarm.at}: ${s.lastAlarm.detail}` : "";
          return `${s.name}  ${s.url ?? "(no URL: offline verification only)"}\n    ${cos}${behind}${alarm}`;
        });
        print(opts, { policy: w.policyFile, quorum: w.policy.quorum, latest: w.latestSize, witnesses: w.witnesses }, `policy ${w.policyFile}, quorum ${describeQuorum(w.policy)}\n${lines.join("\n")}`);
      });
    });

  // The witness policy edited as on the admin screen (same use cases, same checks, logged).
  const policy = log.command("witness-policy").description("see or edit the witness policy: add or remove a witness, set the quorum (in force at once)");
  const showPolicy = (opts: ReturnType<typeof globalOptions>, p: WitnessPolicyView): void => {
    const lines = [
      `${p.file}${p.exists ? "" : " (not written yet)"}`,
      ...p.witnesses.map((w) => `witness ${w.name} ${w.vkey}${w.url ? ` ${w.url}` : ""}`),
      ...p.groups.map((g) => `group ${g.name}: ${g.threshold} of ${g.members.join(", ")}`),
      `quorum ${p.quorum}`,
    ];
    print(opts, p, lines.join("\n"));
  };
  const editPolicy = (run: (a: Parameters<typeof showWitnessPolicy>[0]) => Promise<WitnessPolicyView>) => async (...args: unknown[]) => {
    const opts = globalOptions(args[args.length - 1] as Command);
    await withArchive(opts, async (a) => showPolicy(opts, await run(a)));
  };
  policy
    .command("show")
    .description("the witnesses, groups and quorum of the policy")
    .action(editPolicy((a) => showWitnessPolicy(a, operatorActor())));
  policy
    .command("add <name> <vkey> [url]")
    .description("add a witness: its name in the policy, its key (as `dalil witness key` prints it) and its submission URL")
    .action(async (name: string, vkey: string, url: string | undefined, _o: unknown, cmd: Command) =>
      editPolicy((a) => addWitness(a, operatorActor(), { name, vkey, ...(url ? { url } : {}) }))(cmd),
    );
  policy
    .command("remove <name>")
    .description("remove a witness by its name")
    .action(async (name: string, _o: unknown, cmd: Command) => editPolicy((a) => removeWitness(a, operatorActor(), { name }))(cmd));
  policy
    .command("quorum <quorum> [members...]")
    .description("set the quorum: a witness or group name, or none; or a number k and the witnesses of which k must cosign")
    .action(async (quorum: string, members: string[], _o: unknown, cmd: Command) => {
      const input = /^[0-9]+$/.test(quorum) ? { threshold: Number(quorum), members } : { quorum };
      if ("quorum" in input && members.length) throw new Invalid(say("cli.quorumByName"));
      await editPolicy((a) => setWitnessQuorum(a, operatorActor(), input))(cmd);
    });

  log
    .command("cosign")
    .description("ask every witness that has not cosigned the latest checkpoint to cosign it (after a witness was down)")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const { checkpoint, outcomes, quorumMet: met } = await cosignLatest(a, operatorActor());
        const text = outcomes.map((o) => `${o.witness}: ${o.outcome}${"detail" in o ? ` — ${o.detail}` : ""}${o.outcome === "ahead" ? ` (it holds ${o.heldSize})` : ""}`).join("\n");
        print(opts, { size: checkpoint.size, outcomes, quorum: met, note: checkpoint.published }, `checkpoint ${checkpoint.size}: ${met ? "quorum met" : "QUORUM NOT MET"}\n${text}`);
        if (!met) process.exitCode = 1;
      });
    });

  program
    .command("verify-proof")
    .description("check a tlog-proof against leaf bytes and a verifier key: no archive, no database, no network")
    .requiredOption("--proof <file>", "the .tlog-proof file")
    .requiredOption("--leaf <file>", "the exact leaf bytes (the event's JSON)")
    .requiredOption("--key <vkey-or-file>", "the log's verifier key, or a file holding it", (v: string, prev: string[] = []) => [...prev, v])
    .action((o: { proof: string; leaf: string; key: string[] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const keys = o.key.map((k) => (k.includes("+") ? k : readFileSync(k, "utf8").trim()));
      const r = checkProofBundle({ proofText: readText(o.proof), leafBytes: readFileSync(o.leaf), verifierKeys: keys });
      if (r.ok) print(opts, r, `ok: leaf ${r.index} is in ${r.origin} (size ${r.size}), signed by ${r.signedBy.join(", ")}`);
      else {
        print(opts, r, `not verified: ${r.reason}`);
        process.exitCode = 1;
      }
    });
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Invalid(say("cli.cannotRead", { file, code: (err as NodeJS.ErrnoException).code ?? (err as Error).message }));
  }
}
