import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { rotateSealedKey } from "../access/index.ts";
import { rotateMasterKey } from "../archive/index.ts";
import { globalOptions, print, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/** `dalil keys rotate-master|rotate-sealed`: the operator (who holds the keys directory) rotates a key. */
export function registerKeyCommands(program: Command): void {
  const keys = program.command("keys").description("key rotation");

  keys
    .command("rotate-master")
    .description("a new blob master key: rewraps every blob's data key, rewrites no blob (stop servers and workers first)")
    .option("--new-key-file <file>", "the new key (base64 of 32 bytes); default: a fresh random key")
    .action(async (o: { newKeyFile?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const newKey = o.newKeyFile ? Buffer.from(readFileSync(o.newKeyFile, "utf8").trim(), "base64") : undefined;
      if (newKey && newKey.length !== 32) throw new Invalid(say("cli.newKeyFile"), "--new-key-file");
      await withArchive(opts, async (a) => {
        const r = await rotateMasterKey(a, operatorActor(), newKey ? { newKey } : {});
        print(opts, r, `master key ${r.from} → ${r.to}: ${r.rewrapped} data keys rewrapped, ${r.alreadyCurrent} already current. Back up keys/master.key now.`);
      });
    });

  keys
    .command("rotate-sealed")
    .description("a new key for sealed identities: re-encrypts every sealed record")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await rotateSealedKey(a, operatorActor());
        print(opts, r, `sealed key ${r.from ?? "(none)"} → ${r.to}: ${r.records} record(s) re-encrypted. Back up keys/sealed.key now.`);
      });
    });
}
