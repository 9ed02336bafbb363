import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { auditCopies, loadCopies, followOnce, grantMirror, initMirror, listMirrors, loadMirror, restoreFromMirror, revokeMirror } from "../mirror/index.ts";
import { Invalid } from "../core/errors.ts";
import { loadConfig, paths } from "../core/config.ts";
import { writeKeyFile } from "../core/key-file.ts";
import { globalOptions, holdsArchive, positiveIntOption, print, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/** The mirror's folder: --data, or DALIL_MIRROR_DATA, or ./dalil-mirror (never an archive's folder by default). */
function mirrorDir(cmd: Command): string {
  return resolve(globalOptions(cmd).data ?? process.env.DALIL_MIRROR_DATA ?? "./dalil-mirror");
}

export function registerMirrorCommands(program: Command): void {
  const mirror = program.command("mirror").description("mirrors: grant other custodians a copy (on the archive), or keep one (elsewhere)");

  mirror
    .command("grant <name>")
    .description("on the archive: make a token for one mirror (printed once; give it to that custodian)")
    .action(async (name: string, _o, cmd: Command) => {
      const g = globalOptions(cmd);
      await withArchive(g, async (a) => {
        const r = await grantMirror(a, operatorActor(), { name });
        print(g, r, `mirror ${r.name} granted (${r.id}); its token, shown this once:\n${r.token}`);
      });
    });

  mirror
    .command("revoke <name>")
    .description("on the archive: end a mirror's grant; its token stops working at once")
    .action(async (name: string, _o, cmd: Command) => {
      const g = globalOptions(cmd);
      await withArchive(g, async (a) => {
        const r = await revokeMirror(a, operatorActor(), { name });
        print(g, r, `mirror ${r.name} revoked at ${r.revokedAt}`);
      });
    });

  mirror
    .command("list")
    .description("on the archive: the mirrors granted, revoked, and when each last fetched")
    .action(async (_o, cmd: Command) => {
      const g = globalOptions(cmd);
      await withArchive(g, async (a) => {
        const rows = await listMirrors(a, operatorActor());
        print(
          g,
          rows,
          rows.map((r) => `${r.name}  granted ${r.createdAt}${r.revokedAt ? `  revoked ${r.revokedAt}` : ""}  ${r.lastSeenAt ? `last fetched ${r.lastSeenAt}` : "never fetched"}`).join("\n") || "no mirrors granted",
        );
      });
    });

  mirror
    .command("init <url>")
    .description("elsewhere: set up a mirror of the archive at URL in --data DIR with the token its admin granted")
    .requiredOption("--token <token>", "the dalilm_… token from `dalil mirror grant`")
    .option("--name <name>", "this mirror's cosigner key name (a scheme-less URL, e.g. museum.example.org/mirror)")
    .option("--log-key <vkey>", "the archive's log key (vkey), checked rather than fetched (recommended: get it from the archive out of band)")
    .action(async (url: string, o: { token: string; name?: string; logKey?: string }, cmd: Command) => {
      const dir = mirrorDir(cmd);
      const c = await initMirror(dir, { url, token: o.token, name: o.name, logVkey: o.logKey });
      print(globalOptions(cmd), { dir, ...c }, `mirror of ${c.origin} created in ${dir}\nits cosigner key: ${c.vkey}`);
    });

  mirror
    .command("key")
    .description("elsewhere: this mirror's cosigner key (vkey), for witness policies and verifiers")
    .action((_o, cmd: Command) => {
      const { config } = loadMirror(mirrorDir(cmd));
      print(globalOptions(cmd), { name: config.name, vkey: config.vkey }, config.vkey);
    });

  mirror
    .command("follow")
    .description("elsewhere: catch up with the archive, verify, store, cosign; again every --interval seconds unless --once")
    .option("--once", "follow once and exit")
    .option("--interval <seconds>", "seconds between follows", positiveIntOption("--interval"), 60)
    .action(async (o: { once?: boolean; interval: number }, cmd: Command) => {
      const dir = mirrorDir(cmd);
      const g = globalOptions(cmd);
      for (;;) {
        const r = await followOnce(dir);
        print(g, r, `held ${r.size} events (${r.entriesFetched} fetched), ${r.objectsHeld} objects (${r.objectsFetched} fetched, ${r.bytesFetched} bytes); cosigned:\n${r.cosignature}`);
        if (o.once) return;
        await new Promise((ok) => setTimeout(ok, o.interval * 1000));
      }
    });


  program
    .command("restore")
    .description("rebuild an archive in --data NEW_DIR from a mirror's folder and the archive's keys backup")
    .requiredOption("--from <mirror-dir>", "the mirror's folder (dalil mirror follow --data …)")
    .requiredOption("--keys <keys-dir>", "the archive's keys backup (its DATA/keys folder): the blobs and openings are ciphertext without it")
    .action(async (o: { from: string; keys: string }, cmd: Command) => {
      const g = globalOptions(cmd);
      const config = loadConfig({ data: g.data });
      if (holdsArchive(config)) throw new Invalid(say("cli.holdsArchive", { folder: config.dataDir }), "data");
      for (const f of readdirSync(o.keys)) writeKeyFile(paths.keys(config), f, readFileSync(join(o.keys, f)), "create");
      await withArchive(g, async (a) => {
        const r = await restoreFromMirror(a, operatorActor(), { mirrorDir: resolve(o.from) });
        const cp = await a.tree.checkpoint();
        print(
          g,
          { ...r, checkpoint: cp.size },
          `restored ${r.events} events, ${r.checkpoints} checkpoints, ${r.objects} objects (${r.bytes} bytes): ${r.sources} sources, ${r.originals} originals, ${r.renditions} renditions; the restore is event ${r.events}, signed at ${cp.size}.\nRun \`dalil verify --data ${config.dataDir}\` now.`,
        );
      });
    });

  program
    .command("audit")
    .description("audits of the archive's copies")
    .command("copies")
    .description("compare every configured copy (DATA/copies.json) with the archive's store object by object; repair, re-verify, log")
    .action(async (_o, cmd: Command) => {
      const g = globalOptions(cmd);
      await withArchive(g, async (a) => {
        const r = await auditCopies(a, operatorActor(), { copies: loadCopies(a.config.dataDir) });
        const lines = [
          `archive: ${r.archive.checked} objects checked against the log, ${r.archive.failed} failed, ${r.archive.repaired} repaired from a copy`,
          ...r.copies.map((c) => `${c.name} (${c.kind}): ${c.objects} objects; ${c.missing} missing, ${c.corrupt} corrupt, ${c.extra} extra; ${c.repaired} repaired`),
          ...r.findings.map((f) => `  ${f.copy}: ${f.problem} ${f.key}${f.repaired ? " — repaired, verified" : ""}`),
        ];
        print(g, r, lines.join("\n"));
      });
    });
}
