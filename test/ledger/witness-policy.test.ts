import { test } from "node:test";
import assert from "node:assert/strict";
import { Invalid } from "../../src/core/errors.ts";
import { generateCosigner } from "../../src/ledger/cosignature.ts";
import { generateSigner } from "../../src/ledger/note.ts";
import { describeQuorum, parseWitnessPolicy, quorumMet } from "../../src/ledger/witness-policy.ts";

const log = generateSigner("dalil.archive/p1").verifierKey;
const keys = Object.fromEntries(["X1", "X2", "X3", "Y1", "Y2"].map((n) => [n, generateCosigner(`w.example/${n}`).vkey]));

const twoLevels = `# the spec's example, two organisations
log ${log}

witness X1 ${keys.X1} http://127.0.0.1:9001
witness X2 ${keys.X2}
\twitness X3   ${keys.X3}
group X-witnesses 2 X1 X2 X3
witness Y1 ${keys.Y1}
witness Y2 ${keys.Y2}
group Y-witnesses any Y1 Y2
group X-and-Y all X-witnesses Y-witnesses
quorum X-and-Y
`;

test("a two-level policy parses and its quorum needs two X witnesses and one Y witness", () => {
  const p = parseWitnessPolicy(twoLevels);
  assert.equal(p.logs[0]!.origin, "dalil.archive/p1");
  assert.deepEqual(p.witnesses.map((w) => w.name), ["X1", "X2", "X3", "Y1", "Y2"]);
  assert.equal(p.witnesses[0]!.url, "http://127.0.0.1:9001");
  assert.deepEqual(p.groups.map((g) => [g.name, g.threshold]), [["X-witnesses", 2], ["Y-witnesses", 1], ["X-and-Y", 2]]);
  assert.equal(quorumMet(p, new Set(["X1", "X2", "Y2"])), true);
  assert.equal(quorumMet(p, new Set(["X1", "Y1", "Y2"])), false, "one X witness is not enough");
  assert.equal(quorumMet(p, new Set(["X1", "X2", "X3"])), false, "no Y witness");
  assert.equal(describeQuorum(p), "all of (2 of (X1, X2, X3), any of (Y1, Y2))");
});

test("quorum none needs no cosignature; a single witness quorum needs that one", () => {
  assert.equal(quorumMet(parseWitnessPolicy("quorum none\n"), new Set()), true);
  const p = parseWitnessPolicy(`witness A ${keys.X1}\nwitness B ${keys.X2}\nquorum B\n`);
  assert.equal(quorumMet(p, new Set(["A"])), false);
  assert.equal(quorumMet(p, new Set(["B"])), true);
});

test("malformed policies are refused with the line and the reason", () => {
  const refuse = (text: string, why: RegExp): void => assert.throws(() => parseWitnessPolicy(text), (e: unknown) => e instanceof Invalid && why.test(e.message), why.source);
  refuse(`witness A ${keys.X1}\n`, /no quorum line/);
  refuse(`witness A ${keys.X1}\nquorum A\nquorum A\n`, /line 3: a policy has exactly one quorum line/);
  refuse(`quorum A\nwitness A ${keys.X1}\n`, /line 1: the quorum "A" is not a witness or group defined on an earlier line/);
  refuse(`witness A ${keys.X1}\ngroup G 2 A\nquorum G\n`, /line 2: the threshold 2 must be between 1 and the 1 member/);
  refuse(`witness A ${keys.X1}\ngroup G any A A\nquorum G\n`, /a member is listed twice/);
  refuse(`witness A ${keys.X1}\ngroup G any none\nquorum G\n`, /"none" cannot be a group member/);
  refuse(`witness A ${keys.X1}\nwitness A ${keys.X2}\nquorum A\n`, /line 2: the name "A" is already defined/);
  refuse(`witness A ${keys.X1}\nwitness B ${keys.X1}\nquorum A\n`, /same public key/);
  refuse(`witness A ${log}\nquorum A\n`, /signature type 0x01; a witness cosigns with type 0x04/);
  refuse(`witness A ${keys.X1} ftp://x\nquorum A\n`, /not an http\(s\) URL/);
  refuse(`log ${log}\nlog ${log}\nquorum none\n`, /listed twice/);
  refuse(`wittness A ${keys.X1}\nquorum none\n`, /unknown line "wittness"/);
  refuse(`quorum none\u0001\n`, /control character/);
});
