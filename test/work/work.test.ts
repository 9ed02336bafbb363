import { test } from "node:test";
import assert from "node:assert/strict";
import { operatorActor } from "../../src/core/actor.ts";
import { Forbidden, Unauthenticated } from "../../src/core/errors.ts";
import { addUser, peopleNames } from "../../src/access/index.ts";
import { anonymousActor } from "../../src/access/policy.ts";
import { checkNumber, getBody } from "../../src/catalogue/index.ts";
import { myWork, type WorkView } from "../../src/work/index.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { admin, as, investigator, investigatorB, seedBodies, typed } from "../support/catalogue.ts";

const count = (w: WorkView, kind: string) => w.items.find((i) => i.kind === kind)?.count;
const kinds = (w: WorkView) => w.items.map((i) => i.kind);

for (const { backend, skip } of await backends()) {
  test(`a home page lists each role's own work with its count: numbers someone else entered, reviews, flags, dossiers (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    try {
      const [b1, b2] = await seedBodies(archive, investigator, [{ numbers: [typed("detainee", "1234"), typed("branch", "215")] }, { numbers: [typed("detainee", "99")] }]);
      // A confidential body's numbers are not counted for those who may not read it.
      await seedBodies(archive, admin, [{ sensitivity: "confidential", numbers: [typed("detainee", "7")] }]);

      const other = await myWork(archive, investigatorB);
      assert.deepEqual(kinds(other), ["proposals", "numbersToCheck", "dossiers"]);
      assert.equal(count(other, "numbersToCheck"), 3, "three numbers another investigator entered");
      assert.deepEqual(other.items.find((i) => i.kind === "numbersToCheck")!.records!.map((r) => r.ref).sort(), [b1!.ref, b2!.ref].sort());
      assert.equal(count(await myWork(archive, investigator), "numbersToCheck"), 0, "one's own numbers are someone else's to check");
      assert.equal(count(await myWork(archive, admin), "numbersToCheck"), 4, "the administrator also sees the confidential body's number");

      const { numbers } = await getBody(archive, investigatorB, b2!.id);
      await checkNumber(archive, investigatorB, { numberId: numbers[0]!.id, agree: true });
      assert.equal(count(await myWork(archive, investigatorB), "numbersToCheck"), 2, "a checked number leaves the list");

      assert.deepEqual(kinds(await myWork(archive, as("forensic_reviewer"))), ["reviewsAssigned", "disagreements"]);
      assert.deepEqual(kinds(await myWork(archive, as("family_caseworker"))), ["flags", "duplicates"]);
      assert.deepEqual(kinds(await myWork(archive, as("prosecutor"))), ["dossiers"]);
      assert.deepEqual(kinds(await myWork(archive, as("family_member"))), ["myReports"]);
      await assert.rejects(myWork(archive, as("public")), Forbidden);
      await assert.rejects(myWork(archive, anonymousActor), Unauthenticated);
    } finally {
      await close();
    }
  });

  test(`people are named by address and role; a family member's address only to those who read families' data; never to families (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    try {
      const op = operatorActor();
      const { user: colleague } = await addUser(archive, op, { email: "rana@example.org", role: "forensic_reviewer" });
      const { user: family } = await addUser(archive, op, { email: "family@example.org", role: "family_member" });
      const ids = [colleague.id, family.id, "operator:deploy", "system:dalil", `usr_${"z".repeat(26)}`];
      const asInvestigator = (await peopleNames(archive, investigator, { ids })).people;
      assert.deepEqual(asInvestigator, [
        { id: colleague.id, kind: "account", email: "rana@example.org", role: "forensic_reviewer" },
        { id: family.id, kind: "account", email: null, role: "family_member" },
        { id: "operator:deploy", kind: "operator", login: "deploy" },
        { id: "system:dalil", kind: "system" },
        { id: `usr_${"z".repeat(26)}`, kind: "unknown" },
      ]);
      const asCaseworker = (await peopleNames(archive, as("family_caseworker"), { ids: [family.id] })).people;
      assert.deepEqual(asCaseworker, [{ id: family.id, kind: "account", email: "family@example.org", role: "family_member" }]);
      await assert.rejects(peopleNames(archive, as("family_member"), { ids }), (e: unknown) => e instanceof Forbidden && (e as Forbidden).key === "refusal.role");
      await assert.rejects(peopleNames(archive, investigator, { ids: Array.from({ length: 501 }, (_, i) => `usr_${i}`) }), (e: unknown) => (e as Forbidden).key === "people.tooMany");
    } finally {
      await close();
    }
  });
}
