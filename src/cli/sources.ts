import { readFileSync, statSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { listSealed, MAX_IDENTITY_BYTES, openSealedIdentity } from "../access/index.ts";
import { listSources, sealIdentity } from "../archive/index.ts";

import { globalOptions, print, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/**
 * `dalil sources list|seal|unseal|sealed`: the media taken in, and the sealed identities of the people who handed
 * them over. Whoever runs these holds the data directory and its keys, so they act as the operator (an
 * administrator); opening an identity is recorded under the operator's name all the same.
 */
export function registerSourceCommands(program: Command): void {
  const sources = program.command("sources").description("sealed identities of the people who handed over sources");

  sources
    .command("list")
    .description("source media taken in, with their ids (to seal an identity), newest first")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const rows = await listSources(a, operatorActor());
        const sealed = new Set((await listSealed(a, operatorActor())).map((s) => s.sourceId));
        const list = rows.map((r) => ({ id: r.id, label: r.label, kind: r.kind, startedAt: r.started_at, files: r.files, sealed: sealed.has(r.id) }));
        print(opts, list, list.length ? list.map((r) => `${r.id}  ${r.startedAt}  ${r.kind.padEnd(10)} ${String(r.files).padStart(6)} files  ${r.label}${r.sealed ? "  [sealed]" : ""}`).join("\n") : "no sources yet");
      });
    });

  sources
    .command("seal")
    .description("seal the identity of whoever handed over a source (encrypted under keys/sealed.key)")
    .argument("<source>", "the source id")
    .requiredOption("--identity-file <file>", "a text file with the identity; delete it safely afterwards")
    .option("--replace", "replace an existing sealed identity")
    .action(async (sourceId: string, o: { identityFile: string; replace?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const size = statSync(o.identityFile).size;
      if (size > MAX_IDENTITY_BYTES) throw new Invalid(say("cli.identityTooLarge", { kib: MAX_IDENTITY_BYTES / 1024 }), "--identity-file");
      const identity = readFileSync(o.identityFile, "utf8");
      await withArchive(opts, async (a) => {
        const v = await sealIdentity(a, operatorActor(), { sourceId, identity, replace: Boolean(o.replace) });
        print(opts, v, `sealed the identity for source ${v.sourceId} (key ${v.keyId}). Now delete ${o.identityFile} safely (shred -u).`);
      });
    });

  sources
    .command("unseal")
    .description("open a sealed identity: administrators only, with a reason recorded in the custody log")
    .argument("<source>", "the source id")
    .requiredOption("--reason <reason>", "why it must be opened (recorded with your name)")
    .action(async (sourceId: string, o: { reason: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await openSealedIdentity(a, operatorActor(), { sourceId, reason: o.reason });
        print(opts, r, r.identity);
      });
    });

  sources
    .command("sealed")
    .description("which sources have a sealed identity (never the identity)")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const list = await listSealed(a, operatorActor());
        print(opts, list, list.length ? list.map((s) => `${s.sourceId}  sealed ${s.sealedAt} by ${s.sealedBy} (key ${s.keyId})`).join("\n") : "no sealed identities");
      });
    });
}
