import type { Actor, Role } from "../../src/core/actor.ts";
import type { Ctx } from "../../src/app/context.ts";
import { createBodyInTx, type NewBody } from "../../src/catalogue/index.ts";
import type { BodiesTable } from "../../src/catalogue/tables.ts";

/** Record factories for catalogue tests: bodies straight into the database through the module's own code. */
export const as = (role: Role, id = `usr_${role}`): Actor => ({ kind: "user", id, role });

export const investigator = as("investigator", "usr_inv_a");
export const investigatorB = as("investigator", "usr_inv_b");
export const admin = as("admin", "usr_admin");

export async function seedBodies(ctx: Ctx, actor: Actor, bodies: NewBody[]): Promise<BodiesTable[]> {
  return ctx.db.transaction(async (tx) => {
    const out: BodiesTable[] = [];
    for (const b of bodies) out.push(await createBodyInTx(ctx, tx, actor, b, { action: "body.create" }));
    return out;
  });
}

/** A typed number, entered by `by` (default: the seeding investigator). */
export function typed(role: "detainee" | "branch" | "examiner", value: string, by = investigator.id) {
  return { role, value, method: "typed" as const, enteredBy: by };
}
