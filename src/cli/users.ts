import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import {
  addUser,
  disableUser,
  enableUser,
  listUsers,
  resetUser,
  type UserView,
} from "../access/index.ts";
import { globalOptions, print, withArchive } from "./shell.ts";

/**
 * `dalil users …`. Whoever runs these holds the data directory and its keys, so they act as the operator (an administrator); every change
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
}
