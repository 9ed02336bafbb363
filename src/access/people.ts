import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { peopleByIds } from "./users.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * The people behind the ids records carry (who checked a number, who made a link, who acted in a history), for
 * screens to name them by address and role rather than by a `usr_` id. Staff see colleagues; a family member's
 * address only reaches those who may read families' personal data, the others learn that a family member did it.
 * The console's operator and the software itself are named as such. An id that is no account is answered as
 * unknown, the same whether it never was one or no longer is.
 */
export const MAX_NAMES = contracts.MAX_NAMES;
export type PeopleNamesInput = z.input<typeof contracts.PeopleNamesInput>;

export type PersonName = contracts.PersonName;

export async function peopleNames(ctx: Ctx, actor: Actor, sent: PeopleNamesInput): Promise<{ people: PersonName[] }> {
  ctx.policy.require(actor, "people.names");
  const input = parseInput(contracts.PeopleNamesInput, sent);
  const ids = [...new Set(input.ids)];
  if (ids.length > MAX_NAMES) throw new Invalid(`Ask for at most ${MAX_NAMES} people at a time.`, "ids").says("people.tooMany", { max: MAX_NAMES });
  const accounts = await peopleByIds(ctx, ids);
  const policy = ctx.policy;
  const seesFamilies = policy.allows(actor, "personal.read");
  const people = ids.map((id): PersonName => {
    if (id.startsWith("operator:")) return { id, kind: "operator", login: id.slice("operator:".length) };
    if (id.startsWith("system:")) return { id, kind: "system" };
    const p = accounts.get(id);
    if (!p) return { id, kind: "unknown" };
    // a person whose door is the families' portal is a family member: their address is families' personal data
    const hidden = policy.stands({ kind: "user", id, role: p.role }, "family.portal") && !seesFamilies;
    return { id, kind: "account", email: hidden ? null : p.email, role: p.role };
  });
  return { people };
}
