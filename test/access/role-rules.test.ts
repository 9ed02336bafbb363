import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROLES } from "../../src/core/actor.ts";

/**
 * Every role rule lives in src/access/policy.ts (RULES for what a role may do, STANDINGS for how a use case treats
 * it). A use case that compares an actor's role itself would hold a rule the matrix test never sees.
 */
const SRC = join(import.meta.dirname, "../../src");
const POLICY = "access/policy.ts";
const roleNames = ROLES.join("|");
const COMPARISONS: RegExp[] = [
  /\bactor\.role\s*[!=]==?/, // actor.role === …
  /[!=]==?\s*actor\.role\b/, // … === actor.role
  /switch\s*\(\s*\w+\.role\s*\)/, // switch (actor.role)
  new RegExp(`\\.role\\s*[!=]==?\\s*"(${roleNames})"`), // u.role === "admin"
  new RegExp(`"(${roleNames})"\\s*[!=]==?\\s*\\w+\\.role\\b`), // "admin" === u.role
  new RegExp(`\\[(\\s*"(${roleNames})"\\s*,?)+\\]\\.includes\\(\\s*\\w+\\.role\\s*\\)`), // ["admin", …].includes(u.role)
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

export function roleComparisons(source: string): string[] {
  return source.split("\n").filter((line) => COMPARISONS.some((re) => re.test(line)));
}

test("the check finds a role compared in a use case, whichever way it is written", () => {
  for (const line of [
    'if (actor.role !== "forensic_reviewer") throw new Forbidden("…");',
    'const all = "admin" === actor.role;',
    'if (u.role === "family_member") return;',
    'switch (actor.role) {',
    'if (["admin", "archivist"].includes(actor.role)) ok();',
  ]) {
    assert.equal(roleComparisons(line).length, 1, line);
  }
  // a number's or a photo's role is not an actor's
  assert.deepEqual(roleComparisons('if (n.role === "detainee") x(); if (p.role !== role) y();'), []);
});

test("no file outside access/policy.ts compares an actor's role: every role rule is in the policy", () => {
  const found: string[] = [];
  for (const f of files(SRC)) {
    const rel = relative(SRC, f).split("\\").join("/");
    if (rel === POLICY) continue;
    for (const line of roleComparisons(readFileSync(f, "utf8"))) found.push(`${rel}: ${line.trim()}`);
  }
  assert.deepEqual(found, [], "move these rules into RULES or STANDINGS in src/access/policy.ts");
});
