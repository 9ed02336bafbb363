import { test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { operatorActor } from "../../src/core/actor.ts";
import { Invalid } from "../../src/core/errors.ts";
import { addUser, createApiToken, disableUser, findSession, resetUser, changePassword, actorForToken } from "../../src/access/index.ts";
import { createReport } from "../../src/families/index.ts";
import { linkMember } from "../../src/families/members.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, fullSession, readyUser } from "../support/accounts.ts";
import { caseworker, familyMember, REPORT } from "../support/casework.ts";

/**
 * Median times of `n` runs each of two async calls expected to throw, taken in turn (a, b, a, b, ...) so that a
 * busy machine slows both alike instead of whichever happened to run during the busy moment.
 */
async function medianMsInTurn(n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  const time = async (f: () => Promise<unknown>, into: number[]) => {
    const t0 = performance.now();
    await f().catch(() => {});
    into.push(performance.now() - t0);
  };
  for (let i = 0; i < n; i++) {
    await time(a, ta);
    await time(b, tb);
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(n / 2)]!;
  return [median(ta), median(tb)];
}

for (const { backend, skip } of await backends()) {
  test(`a stolen API token dies when its owner changes the password, or an administrator resets it, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "investigator");
      const first = await createApiToken(t.ctx, u.actor, { name: "made by the thief", scopes: ["archive.read"] });
      assert.ok(await actorForToken(t.ctx.db.db, t.clock, first.token));
      const s = await fullSession(t.ctx, u.id);
      const live = (await findSession(t.ctx.db.db, t.clock, s.token))!;
      await changePassword(t.ctx, live, { current: u.password, next: "a new password nobody else knows" });
      assert.equal(await actorForToken(t.ctx.db.db, t.clock, first.token), null, "a password change ends the account's tokens");

      const second = await createApiToken(t.ctx, u.actor, { name: "made again", scopes: ["archive.read"] });
      await resetUser(t.ctx, operatorActor(), { user: u.id });
      assert.equal(await actorForToken(t.ctx.db.db, t.clock, second.token), null, "an administrator's reset ends them too");
    } finally {
      await t.close();
    }
  });

  test(`linking a family member to a report does not tell a caseworker who has an account, or what role, on ${backend.name}`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const a = t.ctx;
    try {
      const mother = await familyMember(a, "mother");
      const report = await createReport(a, mother, { ...REPORT, reporterContact: "phone" });
      const staff = await readyUser(a, "investigator");
      const { user: gone } = await addUser(a, operatorActor(), { email: `gone-${Date.now()}@example.org`, role: "family_member" });
      await disableUser(a, operatorActor(), gone.id);
      const probes = ["nobody-at-all@example.org", staff.email, staff.id, gone.email, "usr_0000000000000000000000"];
      const answers = new Set<string>();
      for (const ref of probes) {
        const err = await linkMember(a, caseworker, { report: report.ref, userId: ref }).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(err instanceof Invalid, `${ref}: ${String(err)}`);
        answers.add(err.message.replace(ref, "<ref>"));
      }
      assert.deepEqual([...answers], ["There is no enabled family member's account <ref>."], "one answer for all of them");
      // The same work for an unknown address and a staff member's: one lookup, no extra step for either.
      const [unknown, known] = await medianMsInTurn(
        15,
        () => linkMember(a, caseworker, { report: report.ref, userId: "nobody-at-all@example.org" }),
        () => linkMember(a, caseworker, { report: report.ref, userId: staff.email }),
      );
      assert.ok(Math.max(unknown, known) < 3 * Math.min(unknown, known) + 2, `unknown ${unknown.toFixed(2)} ms, known ${known.toFixed(2)} ms`);
    } finally {
      await t.close();
    }
  });
}
