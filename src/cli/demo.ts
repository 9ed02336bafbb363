import type { Archive } from "../app/context.ts";
import { operatorActor, type Actor, type Role } from "../core/actor.ts";
import { addUser, listUsers } from "../access/index.ts";
import { proposeGroupings } from "../catalogue/index.ts";

/**
 * The demo's people, so `npm start` leads to a sign-in and every role has a home with something in it: one account
 * per working role (each with a one-time password, printed once), and the demo card's grouping queued as the
 * investigator's work, which the server's worker then runs (proposals with the numbers read from the cards).
 */
export const DEMO_PEOPLE: readonly { email: string; role: Role; groupsTheCard?: true }[] = [
  { email: "admin@demo.dalil", role: "admin" },
  { email: "archivist@demo.dalil", role: "archivist" },
  { email: "investigator@demo.dalil", role: "investigator", groupsTheCard: true },
  { email: "reviewer@demo.dalil", role: "forensic_reviewer" },
  { email: "caseworker@demo.dalil", role: "family_caseworker" },
  { email: "prosecutor@demo.dalil", role: "prosecutor" },
  { email: "curator@demo.dalil", role: "curator" },
];

export interface DemoAccount {
  email: string;
  role: Role;
  oneTimePassword: string;
}

/** Creates the demo's accounts when the archive has none, and queues grouping of the card just taken in. */
export async function seedDemo(a: Archive, newSource: string | null): Promise<{ accounts: DemoAccount[]; groupingJob: string | null }> {
  const accounts: DemoAccount[] = [];
  let investigator: Actor | null = null;
  if ((await listUsers(a, operatorActor())).length === 0) {
    for (const p of DEMO_PEOPLE) {
      const { user, oneTimePassword } = await addUser(a, operatorActor(), { email: p.email, role: p.role });
      accounts.push({ email: user.email, role: user.role, oneTimePassword });
      if (p.groupsTheCard) investigator = { kind: "user", id: user.id, role: user.role };
    }
  }
  const groupingJob = newSource && investigator ? (await proposeGroupings(a, investigator, { sourceId: newSource })).jobId : null;
  return { accounts, groupingJob };
}
