/** Who does something. Every custody event names one; the policy decides what each may do. */
export type Role =
  | "admin"
  | "archivist"
  | "investigator"
  | "forensic_reviewer"
  | "family_caseworker"
  | "prosecutor"
  | "curator"
  | "family_member"
  | "public";

export const ROLES: readonly Role[] = [
  "admin",
  "archivist",
  "investigator",
  "forensic_reviewer",
  "family_caseworker",
  "prosecutor",
  "curator",
  "family_member",
  "public",
];

export interface Actor {
  /**
   * user: a signed-in person; operator: someone at the server's shell (holds the data dir); system: the software
   * itself; follower: a mirror the archive granted (its token), role public, scoped to following.
   */
  kind: "user" | "operator" | "system" | "follower";
  id: string;
  role: Role;
  label?: string;
}

export function operatorActor(): Actor {
  const user = process.env.USER ?? process.env.LOGNAME ?? "unknown";
  return { kind: "operator", id: `operator:${user}`, role: "admin" };
}

export const systemActor: Actor = { kind: "system", id: "system:dalil", role: "admin" };

/** The form of an actor written into custody events: identifying the agent, never carrying secrets. */
export function actorRef(a: Actor): { kind: string; id: string; role: string } {
  return { id: a.id, kind: a.kind, role: a.role };
}
