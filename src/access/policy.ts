import type { Actor, Role } from "../core/actor.ts";
import { Forbidden, Unauthenticated } from "../core/errors.ts";

/**
 * The one place that decides every permission: role × action × record sensitivity × relationship.
 *
 * - An action is granted to roles outright (`roles`), or to a role only through a relationship to the record
 *   (`related`: the family member who filed a report sees that report, and nothing else).
 * - A record may carry a sensitivity; a role sees records up to its clearance. A relationship grant does not
 *   depend on clearance: a family's own report is theirs whatever its marking.
 * - An API token narrows its user's role to the token's scopes; it never widens it.
 * - An anonymous visitor has the `public` role and nothing that needs an account.
 *
 * Use cases, routes and CLI commands name their action and ask here; nothing else decides.
 */
export type Action =
  | "archive.read" // list originals, see metadata that is not sensitive
  | "archive.ingest"
  | "archive.verify"
  | "original.view" // the blurred rendition
  | "original.reveal" // the original bytes or unblurred rendition: logged
  | "metadata.sensitive" // serials, owner fields, paths on the medium
  | "log.read" // checkpoints, hash tiles, consistency proofs: the log's shape, nothing of what it holds
  | "log.entries" // the events themselves: entry bundles, inclusion proofs by SHA-256 or id ("do you hold X?")
  | "mirror.manage" // grant, revoke and list mirrors (other custodians' copies)
  | "witness.manage" // see and edit the witness policy (which witnesses cosign checkpoints, the quorum)
  | "mirror.follow" // a granted mirror's token: entry bundles, sealed openings, the encrypted blobs (ciphertext)
  | "jobs.read"
  | "jobs.run"
  | "account.self" // one's own password, second factor, sessions
  | "token.manage" // one's own API tokens for scripts
  | "users.manage" // other people's accounts and roles
  | "people.names" // colleagues' addresses and roles, to name who did what on screens (never a family member's)
  | "work.read" // one's own home page: what waits for this person
  | "sealed.list" // which sources have a sealed identity (never the identity)
  | "sealed.write" // seal a source's identity (write-only: sealing does not let one read it back)
  | "sealed.open" // read a sealed identity, with a recorded reason
  | "keys.rotate"
  | "personal.read" // families' personal data in general (reports, contacts)
  | "report.read" // one missing-person report
  | "disclosure.read" // what was disclosed to a family
  // Catalogue (src/catalogue): bodies, numbers, proposals, entities, links, vocabularies, search.
  | "catalogue.read" // body records, entities, links, vocabularies, history, search (no image bytes)
  | "catalogue.group" // propose groupings of a source's photos; accept, split, merge, reject; split and merge bodies
  | "catalogue.edit" // edit body fields, add or withdraw numbers, entities and links
  | "catalogue.check" // the second-person check of a number
  | "catalogue.import" // CSV import of bodies
  | "catalogue.export" // CSV export of bodies (an export event)
  | "vocabulary.manage" // add, correct or retire terms of the controlled vocabularies
  // Families (src/families): missing-person reports, candidates, disclosures.
  | "report.file" // enter a missing-person report (a family member files their own)
  | "report.edit" // change a report (a family member only the one they filed), consent tiers included
  | "report.import" // CSV import of reports
  | "family.match" // rank bodies for reports (candidates are stored, not shown)
  | "family.candidates" // read a report's ranked candidates with their evidence
  | "disclosure.make" // decide and record a disclosure or identification to a family
  | "dna.refer" // record and read a report's DNA / ante-mortem referrals (lab, reference, status, result)
  | "package.export" // build an evidence package of originals for a recipient (a logged handover)
  // Forensic review (src/review): samples, assignments, blind double review, resolution, agreement statistics.
  | "review.sample" // draw a reproducible stratified sample of bodies for review
  | "review.assign" // assign a sample's bodies to forensic reviewers
  | "review.submit" // one's own assignments: record and sign findings (the reviewer must be the one assigned)
  | "review.read" // submitted reviews (another reviewer's blind review stays hidden until both have submitted)
  | "review.resolve" // settle a disagreement between double reviews (third reviewer or consensus)
  | "review.stats" // agreement statistics (Cohen's kappa)
  // Dossiers (src/dossiers): cases, exhibits, frozen versions; redaction regions of photos.
  | "dossier.read" // dossiers, their exhibits with the reasoning, versions
  | "dossier.edit" // create a dossier, add or withdraw exhibits, freeze a version
  | "redaction.mark" // record the regions (faces, identifying details) a redacted copy of a photo hides
  // Authenticity (src/authenticity): header, sequence and content analysis of a card's photos.
  | "authenticity.run" // analyse a card (a custody event with the software version and parameters)
  | "authenticity.read" // the analyses: cameras, signatures, sequence, findings with their reasons
  | "authenticity.ela" // an error-level map of one photo: a picture made from the unblurred original
  // Exhibitions (src/exhibitions): curated, redacted, consented selections for the public.
  | "exhibition.read" // exhibitions in every state, their items, regions and reviews
  | "exhibition.edit" // create an exhibition, choose and order items, captions, redaction layers and regions
  | "exhibition.review" // the second person: confirm an item's redaction, approve an exhibition (never one's own)
  | "exhibition.publish"; // publish an approved exhibition, withdraw it, export it as a static folder

/** How far a record may travel. Ordered: a role cleared for one level sees every level below it. */
export type Sensitivity = "public" | "internal" | "restricted" | "confidential";
export const SENSITIVITIES: readonly Sensitivity[] = ["public", "internal", "restricted", "confidential"];

/** How an actor can stand to a record, beyond their role. Domain modules fill in who stands where. */
export type Relation =
  | "self" // the account, session or token is the actor's own
  | "filer" // the family member who filed the report
  | "recipient"; // the family member a disclosure was made to

export interface Resource {
  sensitivity?: Sensitivity;
  /** Who stands in which relation to the record, by actor id: `{ filer: [report.filedBy] }`. */
  relations?: Partial<Record<Relation, readonly string[]>>;
}

/** What an action lets one see: any role granted one of these must sign in with a second factor. */
export type Exposure = "originals" | "personal" | "sealed" | "sensitive-metadata" | "accounts";

export interface Rule {
  roles: readonly Role[];
  related?: Partial<Record<Role, readonly Relation[]>>;
  exposes?: Exposure;
  /** Needs an account: an anonymous visitor is told to sign in even if `public` is listed. */
  signedIn?: boolean;
  /** Granted to a mirror's follower token (an actor of kind "follower"), whatever its role. */
  followers?: true;
}

const STAFF: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator"];
const EVERYONE: Role[] = [...STAFF, "family_member", "public"];

function selfFor(roles: readonly Role[]): Partial<Record<Role, readonly Relation[]>> {
  return Object.fromEntries(roles.map((r) => [r, ["self"]]));
}

export const RULES: Record<Action, Rule> = {
  "archive.read": { roles: STAFF, exposes: "originals" },
  "archive.ingest": { roles: ["admin", "archivist"], exposes: "originals" },
  "archive.verify": { roles: ["admin", "archivist"] },
  "original.view": { roles: STAFF, exposes: "originals" },
  "original.reveal": { roles: ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"], exposes: "originals" },
  "metadata.sensitive": { roles: ["admin", "archivist"], exposes: "sensitive-metadata" },
  // Anyone may hold the archive to an append-only log: checkpoints, hash tiles and consistency proofs say how
  // many events there are and that none was changed, nothing about what they concern.
  "log.read": { roles: EVERYONE },
  // The events say which photographs the archive holds, from which source and when, which family was shown which
  // body: only the custodians who already see every original and source and who run `dalil verify` (admins,
  // archivists). Investigators, reviewers and prosecutors see the records their work needs through their own
  // actions; a court gets its exhibits' events and proofs inside a package; families and the public never.
  "log.entries": { roles: ["admin", "archivist"], signedIn: true },
  // A mirror is another custodian's copy: an admin grants it (a token for one follower), and the follower's token
  // reads the entries and the blobs as ciphertext, nothing else (its actor holds only these scopes).
  "mirror.manage": { roles: ["admin"], signedIn: true },
  "mirror.follow": { roles: [], followers: true, signedIn: true },
  // The witnesses hold the archive to one history: who they are and how many must cosign is the admin's to set.
  "witness.manage": { roles: ["admin"], signedIn: true },
  "jobs.read": { roles: STAFF },
  "jobs.run": { roles: ["admin", "archivist"] },
  // One's own account, sessions and tokens: granted through the "self" relation, so a guessed id of someone
  // else's session or token is refused by the same rule that grants one's own.
  "account.self": { roles: [], related: selfFor(EVERYONE), signedIn: true },
  "token.manage": { roles: [], related: selfFor(STAFF), signedIn: true },
  "users.manage": { roles: ["admin"], exposes: "accounts", signedIn: true },
  // Staff see who checked a number, wrote a review or prepared a report: colleagues by address and role, so no
  // screen shows a usr_ id. Families and the public are never told who in the archive did what.
  "people.names": { roles: STAFF, signedIn: true },
  "work.read": { roles: [...STAFF, "family_member"], signedIn: true },
  "sealed.list": { roles: ["admin"], signedIn: true },
  "sealed.write": { roles: ["admin", "archivist"], signedIn: true },
  "sealed.open": { roles: ["admin"], exposes: "sealed", signedIn: true },
  "keys.rotate": { roles: ["admin"], signedIn: true },
  "personal.read": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  "report.read": {
    roles: ["admin", "family_caseworker"],
    related: { family_member: ["filer"] },
    exposes: "personal",
    signedIn: true,
  },
  "disclosure.read": {
    roles: ["admin", "family_caseworker"],
    related: { family_member: ["recipient", "filer"] },
    exposes: "personal",
    signedIn: true,
  },
  // Body records are restricted (identified names, the numbers that tie a person to a branch); the roles whose work
  // is the catalogue read it: not curators (exhibitions get redacted selections) nor families (disclosures).
  "catalogue.read": { roles: ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor"] },
  "catalogue.group": { roles: ["admin", "investigator"] },
  "catalogue.edit": { roles: ["admin", "investigator"] },
  "catalogue.check": { roles: ["admin", "archivist", "investigator"] },
  "catalogue.import": { roles: ["admin", "investigator"] },
  "catalogue.export": { roles: ["admin", "investigator"] },
  "vocabulary.manage": { roles: ["admin"], signedIn: true },
  // A family member files and corrects their own report and sees only what was disclosed to them; candidates and
  // matching are caseworkers' work, never shown to a family before a caseworker's decision.
  "report.file": { roles: ["admin", "family_caseworker", "family_member"], exposes: "personal", signedIn: true },
  "report.edit": { roles: ["admin", "family_caseworker"], related: { family_member: ["filer"] }, exposes: "personal", signedIn: true },
  "report.import": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  "family.match": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  "family.candidates": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  "disclosure.make": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  // A referral holds a family's genetic sample's trail: caseworkers only; a family hears of a result from one.
  "dna.refer": { roles: ["admin", "family_caseworker"], exposes: "personal", signedIn: true },
  // Original bytes leave the archive's custody: the custodians (archivists, admins) hand them over. A prosecutor is
  // a recipient of packages, not their maker: letting a recipient build its own would remove the custodian from
  // the handover the package proves.
  "package.export": { roles: ["admin", "archivist"], exposes: "originals", signedIn: true },
  // Reviews are examinations of graphic originals: only forensic reviewers record them; investigators and
  // administrators organise the work; prosecutors read the results. Curators and families have no part in it.
  "review.sample": { roles: ["admin", "investigator"], signedIn: true },
  "review.assign": { roles: ["admin", "investigator"], signedIn: true },
  "review.submit": { roles: ["forensic_reviewer"], exposes: "originals", signedIn: true },
  "review.read": { roles: ["admin", "investigator", "forensic_reviewer", "prosecutor"], signedIn: true },
  "review.resolve": { roles: ["admin", "forensic_reviewer"], signedIn: true },
  "review.stats": { roles: ["admin", "investigator", "forensic_reviewer", "prosecutor"], signedIn: true },
  // A dossier is the investigators' case file; prosecutors read it (and receive packages of it, built by custodians).
  // Building a package of a dossier means reading it (the package holds its exhibits and their reasoning), so the
  // custodians who build packages (archivists) read dossiers too: every role with package.export has dossier.read.
  "dossier.read": { roles: ["admin", "archivist", "investigator", "prosecutor"], signedIn: true },
  "dossier.edit": { roles: ["admin", "investigator"], signedIn: true },
  // Marking regions means looking at the unblurred original.
  "redaction.mark": { roles: ["admin", "archivist", "investigator"], exposes: "originals", signedIn: true },
  // Whether a photo is what it claims to be is asked by custodians, investigators and prosecutors alike; the
  // findings name photos and cameras (the serial only for metadata.sensitive), never show pixels.
  "authenticity.run": { roles: ["admin", "archivist", "investigator"], signedIn: true },
  "authenticity.read": { roles: ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"], signedIn: true },
  // The map shows the photograph's edges and textures: the roles that may see the unblurred original.
  "authenticity.ela": { roles: ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"], exposes: "originals", signedIn: true },
  // Exhibitions are the curators' work. Drawing and confirming regions means looking at the unredacted original;
  // the reviewer is a second curator (or an administrator), never the one who submitted the exhibition (checked
  // on the record). Reading an exhibition includes its items' images as they would be published (a read of the
  // original when little is hidden, logged). What is published is read by anyone through the public pages.
  "exhibition.read": { roles: ["admin", "curator"], exposes: "originals", signedIn: true },
  "exhibition.edit": { roles: ["admin", "curator"], exposes: "originals", signedIn: true },
  "exhibition.review": { roles: ["admin", "curator"], exposes: "originals", signedIn: true },
  "exhibition.publish": { roles: ["admin", "curator"], signedIn: true },
};

/** Roles granted each action outright (kept for callers that read the first table). */
export const PERMISSIONS: Record<Action, readonly Role[]> = Object.fromEntries(
  Object.entries(RULES).map(([a, r]) => [a, r.roles]),
) as Record<Action, readonly Role[]>;

export const ACTIONS = Object.keys(RULES) as Action[];

/**
 * How a use case treats an actor because of their role, where the rule is not "may they do this action" but
 * "how does the action go for them". Kept here, beside the permissions, so every role rule is in one file: no
 * use case compares `actor.role` itself (test/access/role-rules.test.ts fails if one does).
 */
export type Standing =
  // Double review is blind for forensic reviewers: the other reviewer's review of a body they both review, and
  // everything the other did about it, stays hidden until both reviews are in. Organisers and readers are not
  // reviewers of the body and see the reviews as they come.
  | "review.blind"
  // A disputed double review is settled by a third review: a forensic reviewer who did not review the body.
  | "review.third"
  // A consensus is recorded by one of the two reviewers of the body, or by an administrator for any pair.
  | "review.consensus.any"
  // The families' portal is the family members' own door; caseworkers use the families routes.
  | "family.portal"
  // A family member is the filer of the reports they file, and the archive gives those reports their reference.
  | "family.filer"
  // A caseworker who enters a report becomes its assigned caseworker.
  | "family.caseworker"
  // Flags (reopened cases) reach every caseworker's reports for an administrator; a caseworker sees the flags of
  // their own reports and of unassigned ones.
  | "family.flags.all"
  // A record outside one's reach is "not found" rather than "forbidden": a family member learns nothing about
  // other families' reports from the refusal.
  | "family.not-found";

export const STANDINGS: Record<Standing, readonly Role[]> = {
  "review.blind": ["forensic_reviewer"],
  "review.third": ["forensic_reviewer"],
  "review.consensus.any": ["admin"],
  "family.portal": ["family_member"],
  "family.filer": ["family_member"],
  "family.caseworker": ["family_caseworker"],
  "family.flags.all": ["admin"],
  "family.not-found": ["family_member"],
};

/**
 * Which action lets one follow a job of each kind (besides `jobs.read`): a job's progress and result are part of
 * the work it does, so a role sees the jobs of the work it may do. A caseworker sees matching runs, not card
 * intakes; an investigator proposals, not packages. A job of a kind not listed here is seen by roles that run jobs.
 */
export const JOB_KINDS: Readonly<Record<string, Action>> = {
  "archive.ingest": "archive.ingest",
  "archive.renditions": "archive.ingest",
  "archive.fixity-audit": "archive.verify",
  "catalogue.propose": "catalogue.group",
  "dossiers.package": "package.export",
  "dossiers.package-expiry": "package.export",
  "families.rerank": "family.match",
  "families.watch-bodies": "family.match",
  "authenticity.run": "authenticity.run",
  "exhibitions.consent-sweep": "exhibition.publish",
  "exhibitions.face-suggest": "exhibition.edit",
};

/** The job kinds this actor may follow: "all" when that is every kind (unlisted ones included), else the list. */
export function readableJobKinds(p: Policy, actor: Actor): "all" | string[] {
  if (!p.allows(actor, "jobs.read")) return [];
  const kinds = Object.keys(JOB_KINDS).filter((k) => p.allows(actor, JOB_KINDS[k]!));
  return kinds.length === Object.keys(JOB_KINDS).length && p.allows(actor, "jobs.run") ? "all" : kinds;
}

/** The highest sensitivity each role may see by role alone. */
export const CLEARANCE: Record<Role, Sensitivity> = {
  admin: "confidential",
  archivist: "restricted",
  investigator: "restricted",
  forensic_reviewer: "restricted",
  family_caseworker: "restricted",
  prosecutor: "restricted",
  curator: "internal",
  family_member: "public",
  public: "public",
};

export const ANONYMOUS_ID = "anonymous";

/** The actor of a request that carries no credential. */
export const anonymousActor: Actor = Object.freeze({ kind: "user", id: ANONYMOUS_ID, role: "public" });

export function isAnonymous(actor: Actor): boolean {
  return actor.kind === "user" && actor.id === ANONYMOUS_ID;
}

/** An actor signed in with an API token carries the token's scopes; the policy intersects them with the role. */
export interface ScopedActor extends Actor {
  scopes?: readonly Action[];
}

export type Denial = "anonymous" | "role" | "scope" | "sensitivity" | "relation";
export type Decision = { allowed: true; via: "role" | "relation" | "grant" } | { allowed: false; reason: Denial };

export interface Policy {
  decide(actor: Actor, action: Action, resource?: Resource): Decision;
  allows(actor: Actor, action: Action, resource?: Resource): boolean;
  /** Throws Unauthenticated (anonymous) or Forbidden (with the reason) unless allowed. */
  require(actor: Actor, action: Action, resource?: Resource): void;
  /**
   * Whether the actor could be allowed the action on some record: the gate in front of a route, before the
   * record is known. A relationship grant passes here and is decided on the record by the use case.
   */
  mayAttempt(actor: Actor, action: Action): boolean;
  /** Roles that can see originals, personal data, sealed records or accounts sign in with a second factor. */
  needsSecondFactor(role: Role): boolean;
  /** Whether the actor's role has this standing (how a use case treats them; see STANDINGS). */
  stands(actor: Actor, standing: Standing): boolean;
}

function rank(s: Sensitivity): number {
  return SENSITIVITIES.indexOf(s);
}

function scopeOf(actor: Actor): readonly Action[] | undefined {
  return (actor as ScopedActor).scopes;
}

function gate(actor: Actor, action: Action): Denial | null {
  const rule = RULES[action];
  if (rule.signedIn && isAnonymous(actor)) return "anonymous";
  const scopes = scopeOf(actor);
  if (scopes && !scopes.includes(action)) return "scope";
  return null;
}

function decide(actor: Actor, action: Action, resource?: Resource): Decision {
  const rule = RULES[action];
  const denied = gate(actor, action);
  if (denied) return { allowed: false, reason: denied };
  if (rule.followers && actor.kind === "follower") return { allowed: true, via: "grant" };
  const byRole = rule.roles.includes(actor.role);
  if (byRole) {
    if (!resource?.sensitivity || rank(resource.sensitivity) <= rank(CLEARANCE[actor.role])) return { allowed: true, via: "role" };
  }
  const relations = rule.related?.[actor.role];
  if (relations && resource?.relations && !isAnonymous(actor)) {
    for (const rel of relations) {
      if (resource.relations[rel]?.includes(actor.id)) return { allowed: true, via: "relation" };
    }
  }
  if (byRole) return { allowed: false, reason: "sensitivity" };
  if (relations) return { allowed: false, reason: "relation" };
  return { allowed: false, reason: isAnonymous(actor) && !rule.roles.includes("public") ? "anonymous" : "role" };
}

function refusal(actor: Actor, action: Action, reason: Denial, resource?: Resource): Error {
  switch (reason) {
    case "anonymous":
      return new Unauthenticated("Sign in first: this needs an account.").says("refusal.signIn");
    case "scope":
      return new Forbidden(`This API token is not allowed to do this (${action}); create a token with that scope.`).says("refusal.scope", { action });
    case "sensitivity":
      return new Forbidden(
        `This record is marked ${resource?.sensitivity ?? "restricted"}; your role (${actor.role}) may not see it. Ask an administrator if your work needs it.`,
      ).says("refusal.sensitivity", { role: actor.role, sensitivity: resource?.sensitivity ?? "restricted" });
    case "relation":
      return new Forbidden(`Your role (${actor.role}) may only see records that concern you (${action}).`).says("refusal.relation", { role: actor.role });
    case "role":
      return new Forbidden(`Your role (${actor.role}) may not do this (${action}). Ask an administrator if you need it.`).says("refusal.role", { role: actor.role, action });
  }
}

export const policy: Policy = {
  decide,
  allows(actor, action, resource) {
    return decide(actor, action, resource).allowed;
  },
  require(actor, action, resource) {
    const d = decide(actor, action, resource);
    if (!d.allowed) throw refusal(actor, action, d.reason, resource);
  },
  mayAttempt(actor, action) {
    if (gate(actor, action)) return false;
    const rule = RULES[action];
    if (rule.followers && actor.kind === "follower") return true;
    if (rule.roles.includes(actor.role)) return true;
    return Boolean(rule.related?.[actor.role]?.length) && !isAnonymous(actor);
  },
  needsSecondFactor(role) {
    return ACTIONS.some((a) => {
      const rule = RULES[a];
      return rule.exposes !== undefined && (rule.roles.includes(role) || Boolean(rule.related?.[role]?.length));
    });
  },
  stands(actor, standing) {
    return STANDINGS[standing].includes(actor.role);
  },
};

/** The refusal for an action at a route's gate: 401 for a visitor who has not signed in, 403 otherwise. */
export function gateRefusal(actor: Actor, action: Action): Error {
  const d = gate(actor, action);
  if (d) return refusal(actor, action, d);
  if (isAnonymous(actor)) return new Unauthenticated("Sign in first: this needs an account.").says("refusal.signIn");
  return refusal(actor, action, "role");
}
