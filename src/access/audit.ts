import type { Actor } from "../core/actor.ts";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { adb } from "./tables.ts";

/**
 * Changes to who may do what (accounts added, disabled, reset; tokens made and revoked; sign-ins locked) are
 * written here in the same transaction as the change, so "who gave this person access, and when" has an
 * answer. Acts on evidence go to the custody log instead. Details never hold a secret, an email address or an
 * identity: accounts are named by id.
 */
export type AccessChange =
  | "user.added"
  | "user.disabled"
  | "user.enabled"
  | "user.reset"
  | "password.changed"
  | "totp.enrolled"
  | "recovery.used"
  | "sessions.revoked"
  | "token.created"
  | "token.revoked"
  | "signin.locked";

export async function recordAccessChange(
  tx: Tx,
  clock: Clock,
  actor: Actor | string,
  action: AccessChange,
  subject: string | null,
  detail: Record<string, string | number | boolean | null> = {},
): Promise<void> {
  await adb(tx)
    .insertInto("access_audit")
    .values({
      id: newId("acc"),
      at: clock.now().toISOString(),
      actor: typeof actor === "string" ? actor : actor.id,
      action,
      subject,
      detail: JSON.stringify(detail),
    })
    .execute();
}

export async function accessChangesFor(tx: Tx, subject: string): Promise<{ at: string; actor: string; action: string; detail: Record<string, unknown> }[]> {
  const rows = await adb(tx).selectFrom("access_audit").selectAll().where("subject", "=", subject).orderBy("at").orderBy("id").execute();
  return rows.map((r) => ({ at: r.at, actor: r.actor, action: r.action, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}
