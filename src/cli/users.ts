import { readFileSync, statSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import {
  addUser,
  disableUser,
  enableUser,
  listSealed,
  listUsers,
  MAX_IDENTITY_BYTES,
  openSealedIdentity,
  resetUser,
  rotateSealedKey,
  type UserView,
} from "../access/index.ts";
import { rotateMasterKey, sealIdentity } from "../archive/index.ts";
import { globalOptions, print, withArchive } from "./shell.ts";

/**
 * `dalil users …`, `dalil sources seal|unseal|sealed`, `dalil keys rotate-master|rotate-sealed`. Whoever runs
 * these holds the data directory and its keys, so they act as the operator (an administrator); every change
 * is recorded under the operator's name all the same.
 */
function userLine(u: UserView): string {
  const flags = [u.disabled ? "disabled" : "", u.secondFactor ? "2fa" : "", u.mustChangePassword ? "must-change-password" : ""].filter(Boolean).join(",");
  return `${u.id}  ${u.role.padEnd(17)} ${u.email}${flags ? `  [${flags}]` : ""}`;
}

function oneTimeText(u: UserView, password: string): string {
  return [
    `${u.email} (${u.role}): ${u.id}`,
    `one-time password: ${password}`,
    "Give it to the person by a separate, safe channel; it is shown only now and must be changed at first sign-in.",
  ].join("\n");
}

export function registerUserCommands(program: Command): void {
  const users = program.command("users").description("accounts: add, list, disable, enable, reset");

  users
    .command("add")
    .description("add an account; prints a one-time password")
    .argument("<email>", "the person's email address")
    .requiredOption("--role <role>", "admin, archivist, investigator, forensic_reviewer, family_caseworker, prosecutor, curator, family_member or public")
    .action(async (email: string, o: { role: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await addUser(a, operatorActor(), { email, role: o.role });
        print(opts, { ...r.user, oneTimePassword: r.oneTimePassword }, oneTimeText(r.user, r.oneTimePassword));
      });
    });

  users
    .command("list")
    .description("accounts with their roles and state")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const list = await listUsers(a, operatorActor());
        print(opts, list, list.length ? list.map(userLine).join("\n") : "no accounts yet: dalil users add EMAIL --role ROLE");
      });
    });

  users
    .command("disable")
    .description("disable an account: its sessions and API tokens stop at once")
    .argument("<user>", "email address or account id")
    .action(async (ref: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const u = await disableUser(a, operatorActor(), ref);
        print(opts, u, `disabled ${userLine(u)}`);
      });
    });

  users
    .command("enable")
    .description("enable a disabled account")
    .argument("<user>", "email address or account id")
    .action(async (ref: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const u = await enableUser(a, operatorActor(), ref);
        print(opts, u, `enabled ${userLine(u)}`);
      });
    });

  users
    .command("reset")
    .description("a new one-time password (sessions end); --second-factor also removes the authenticator app")
    .argument("<user>", "email address or account id")
    .option("--second-factor", "also remove the second factor and recovery codes (a lost phone)")
    .action(async (ref: string, o: { secondFactor?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await resetUser(a, operatorActor(), { user: ref, secondFactor: Boolean(o.secondFactor) });
        print(opts, { ...r.user, oneTimePassword: r.oneTimePassword }, oneTimeText(r.user, r.oneTimePassword));
      });
    });

  const sources = program.command("sources").description("sealed identities of the people who handed over sources");

  sources
    .command("list")
    .description("source media taken in, with their ids (to seal an identity), newest first")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        a.policy.require(operatorActor(), "archive.read");
        const rows = await a.db.db.selectFrom("sources").select(["id", "label", "kind", "started_at", "files"]).orderBy("started_at", "desc").execute();
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
      if (size > MAX_IDENTITY_BYTES) throw new Invalid(`The identity file is larger than ${MAX_IDENTITY_BYTES / 1024} KiB.`, "--identity-file");
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

  const keys = program.command("keys").description("key rotation");

  keys
    .command("rotate-master")
    .description("a new blob master key: rewraps every blob's data key, rewrites no blob (stop servers and workers first)")
    .option("--new-key-file <file>", "the new key (base64 of 32 bytes); default: a fresh random key")
    .action(async (o: { newKeyFile?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const newKey = o.newKeyFile ? Buffer.from(readFileSync(o.newKeyFile, "utf8").trim(), "base64") : undefined;
      if (newKey && newKey.length !== 32) throw new Invalid("The new key file must hold the base64 of 32 bytes.", "--new-key-file");
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
