import type { Ctx } from "../../app/context.ts";
import { peopleByIds } from "../../access/index.ts";
import type { Words } from "./i18n.ts";

/**
 * Names a person the report mentions (its preparer, the second person who checked a number) as a reader
 * recognises them: an account's address and role in the report's language, the console's operator as such.
 * Never a bare `usr_` id: an id that is no longer an account is said to be so.
 */
export class PeopleNames {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly ctx: Ctx,
    private readonly w: Words,
  ) {}

  async label(id: string): Promise<string> {
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit;
    let label: string;
    if (id.startsWith("operator:")) label = `${this.w.operator} (${id.slice("operator:".length)})`;
    else if (id.startsWith("system:")) label = this.w.system;
    else {
      const p = (await peopleByIds(this.ctx, [id])).get(id);
      label = p ? `${p.email} (${this.w.roleNames[p.role] ?? p.role})` : this.w.unknownAccount;
    }
    this.cache.set(id, label);
    return label;
  }
}
