import { test } from "node:test";
import assert from "node:assert/strict";
import { ROLES, operatorActor, systemActor, type Actor, type Role } from "../../src/core/actor.ts";
import { Forbidden, Unauthenticated } from "../../src/core/errors.ts";
import { anonymousActor, policy, type ScopedActor } from "../../src/access/policy.ts";

const as = (role: Role, id = `usr_${role}`): Actor => ({ kind: "user", id, role });

test("existing callers keep working: require(actor, action) and allows(actor, action) by role alone", () => {
  assert.equal(policy.allows(as("archivist"), "archive.ingest"), true);
  assert.equal(policy.allows(as("curator"), "archive.ingest"), false);
  assert.doesNotThrow(() => policy.require(operatorActor(), "archive.verify"));
  assert.doesNotThrow(() => policy.require(systemActor, "jobs.run"));
  assert.throws(() => policy.require(as("investigator"), "metadata.sensitive"), (e: unknown) => e instanceof Forbidden && /investigator/.test((e as Error).message));
});

test("an anonymous visitor is told to sign in, a signed-in role without the action is forbidden", () => {
  assert.throws(() => policy.require(anonymousActor, "archive.read"), Unauthenticated);
  assert.throws(() => policy.require(as("public"), "archive.read"), Forbidden);
  assert.doesNotThrow(() => policy.require(anonymousActor, "log.read"), "the log is for anyone to check");
  assert.throws(() => policy.require(anonymousActor, "account.self", { relations: { self: ["anonymous"] } }), Unauthenticated, "no account, no account actions");
});

test("record sensitivity: a role sees records up to its clearance and no further", () => {
  const restricted = { sensitivity: "restricted" as const };
  assert.equal(policy.allows(as("investigator"), "original.view", restricted), true);
  assert.equal(policy.allows(as("curator"), "original.view", { sensitivity: "internal" }), true);
  assert.equal(policy.allows(as("curator"), "original.view", restricted), false);
  assert.equal(policy.decide(as("curator"), "original.view", restricted).allowed, false);
  assert.deepEqual(policy.decide(as("curator"), "original.view", restricted), { allowed: false, reason: "sensitivity" });
  assert.equal(policy.allows(as("investigator"), "original.view", { sensitivity: "confidential" }), false);
  assert.equal(policy.allows(as("admin"), "original.view", { sensitivity: "confidential" }), true);
  assert.throws(() => policy.require(as("curator"), "original.view", restricted), /marked restricted/);
});

test("relationship: the family member who filed a report sees it; another family's report is refused", () => {
  const mine = { sensitivity: "restricted" as const, relations: { filer: ["usr_fam_a"] } };
  const theirs = { sensitivity: "restricted" as const, relations: { filer: ["usr_fam_b"] } };
  const famA = as("family_member", "usr_fam_a");
  assert.deepEqual(policy.decide(famA, "report.read", mine), { allowed: true, via: "relation" });
  assert.deepEqual(policy.decide(famA, "report.read", theirs), { allowed: false, reason: "relation" });
  assert.equal(policy.allows(famA, "report.read"), false, "without the record, a relationship grants nothing");
  assert.equal(policy.mayAttempt(famA, "report.read"), true, "…but the route's gate lets the use case decide on the record");
  assert.equal(policy.allows(famA, "disclosure.read", { relations: { recipient: ["usr_fam_a"] } }), true);
  assert.equal(policy.allows(famA, "personal.read"), false, "no general access to families' data");
  assert.equal(policy.allows(as("family_caseworker"), "report.read", theirs), true, "caseworkers by role");
  assert.equal(policy.allows(as("investigator"), "report.read", mine), false);
  // A relation held by someone of another role grants nothing: the rule lists which roles it applies to.
  assert.equal(policy.allows(as("curator", "usr_fam_a"), "report.read", mine), false);
});

test("the self relation: one's own sessions and tokens, never someone else's", () => {
  const a = as("investigator", "usr_a");
  assert.equal(policy.allows(a, "account.self", { relations: { self: ["usr_a"] } }), true);
  assert.equal(policy.allows(a, "account.self", { relations: { self: ["usr_b"] } }), false);
  assert.equal(policy.allows(a, "token.manage", { relations: { self: ["usr_a"] } }), true);
  assert.equal(policy.allows(as("family_member", "usr_f"), "token.manage", { relations: { self: ["usr_f"] } }), false, "tokens are for staff scripts");
});

test("an API token narrows its user's role to its scopes and never widens it", () => {
  const scoped: ScopedActor = { kind: "user", id: "usr_s", role: "archivist", scopes: ["archive.read"] };
  assert.equal(policy.allows(scoped, "archive.read"), true);
  assert.equal(policy.allows(scoped, "archive.ingest"), false, "the role could, the token may not");
  assert.throws(() => policy.require(scoped, "archive.ingest"), /API token/);
  const wide: ScopedActor = { kind: "user", id: "usr_w", role: "curator", scopes: ["archive.ingest"] };
  assert.equal(policy.allows(wide, "archive.ingest"), false, "a scope beyond the role grants nothing");
});

test("only administrators open sealed records; archivists may seal but not read back", () => {
  for (const role of ROLES) {
    assert.equal(policy.allows(as(role), "sealed.open"), role === "admin", role);
    assert.equal(policy.allows(as(role), "sealed.write"), role === "admin" || role === "archivist", role);
  }
});

test("a second factor is required for every role that can see originals, personal data or sealed records", () => {
  const expected: Record<Role, boolean> = {
    admin: true,
    archivist: true,
    investigator: true,
    forensic_reviewer: true,
    family_caseworker: true,
    prosecutor: true,
    curator: true,
    family_member: true, // sees their own report: personal data
    public: false,
  };
  for (const role of ROLES) assert.equal(policy.needsSecondFactor(role), expected[role], role);
});

test("standings say how a use case treats a role: review is blind only for forensic reviewers, the portal only for family members", async () => {
  const { STANDINGS } = await import("../../src/access/policy.ts");
  assert.equal(policy.stands(as("forensic_reviewer"), "review.blind"), true);
  assert.equal(policy.stands(as("investigator"), "review.blind"), false, "organisers see reviews as they come");
  assert.equal(policy.stands(as("admin"), "review.third"), false, "a third review is a forensic reviewer's");
  assert.equal(policy.stands(as("admin"), "review.consensus.any"), true);
  assert.equal(policy.stands(as("forensic_reviewer"), "review.consensus.any"), false, "a reviewer records a consensus only for their own pair");
  assert.equal(policy.stands(as("family_member"), "family.portal"), true);
  assert.equal(policy.stands(as("family_caseworker"), "family.portal"), false);
  assert.equal(policy.stands(as("family_caseworker"), "family.caseworker"), true);
  assert.equal(policy.stands(as("family_caseworker"), "family.flags.all"), false, "a caseworker sees their own reports' flags");
  assert.equal(policy.stands(anonymousActor, "family.portal"), false);
  // every standing names roles that exist
  for (const [standing, roles] of Object.entries(STANDINGS)) {
    for (const r of roles) assert.ok(ROLES.includes(r), `${standing}: ${r} is a role`);
  }
});
