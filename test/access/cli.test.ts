import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { findSession, signIn } from "../../src/access/index.ts";
import { backends } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";
import { seedOriginal } from "../support/accounts.ts";

for (const { backend, skip } of await backends()) {
  test(`dalil users add prints a one-time password that must be changed; sources seal/unseal work at the console, on ${backend.name}`, { skip }, async () => {
    const fresh = await backend.fresh();
    const env: Record<string, string> = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
    const config = loadConfig({ data: fresh.dataDir }, env);
    const ctx = await openArchive(config);
    try {
      const { sourceId } = await seedOriginal(ctx);
      const add = await dalil(["--data", fresh.dataDir, "users", "add", "Noor@Example.org", "--role", "family caseworker"], env);
      assert.equal(add.code, 0, add.stderr);
      const otp = /one-time password: (\S+)/.exec(add.stdout)?.[1];
      assert.ok(otp, add.stdout);
      assert.match(add.stdout, /noor@example\.org \(family_caseworker\)/);
      const s = await signIn(ctx, { email: "noor@example.org", password: otp, address: "127.0.0.1" });
      assert.equal(s.session.stage, "password_change");
      assert.equal((await findSession(ctx.db.db, ctx.clock, s.session.token))?.user.mustChangePassword, true);

      const bad = await dalil(["--data", fresh.dataDir, "users", "add", "x@example.org", "--role", "wizard"], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /^dalil: There is no role "wizard"; choose one of: admin, /);

      const idFile = join(fresh.dataDir, "identity.txt");
      writeFileSync(idFile, "Umm Test, reachable through the Gaziantep office");
      const seal = await dalil(["--data", fresh.dataDir, "sources", "seal", sourceId, "--identity-file", idFile], env);
      assert.equal(seal.code, 0, seal.stderr);
      assert.ok(!seal.stdout.includes("Umm Test"));
      const noReason = await dalil(["--data", fresh.dataDir, "sources", "unseal", sourceId, "--reason", "why"], env);
      assert.equal(noReason.code, 2);
      assert.ok(!noReason.stderr.includes("Umm Test") && !noReason.stdout.includes("Umm Test"));
      const open = await dalil(["--data", fresh.dataDir, "sources", "unseal", sourceId, "--reason", "court order for the hearing of 2026-04-02"], env);
      assert.equal(open.code, 0, open.stderr);
      assert.equal(open.stdout.trim(), "Umm Test, reachable through the Gaziantep office");
      const events = (await ctx.log.eventsFor(sourceId)).map((e) => e.event);
      assert.deepEqual(events.map((e) => e.type), ["metadata modification", "opened sealed record"]);
      assert.equal(events[1]!.actor.kind, "operator");
    } finally {
      await ctx.close();
      await fresh.cleanup();
    }
  });
}
