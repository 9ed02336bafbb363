import { test } from "node:test";
import assert from "node:assert/strict";
import { spokenDuration, TimeLeft } from "../../src/core/time-left.ts";
import { progressBar } from "../../src/cli/shell.ts";

test("no estimate until there are five seconds and some progress to judge by", () => {
  const t = new TimeLeft();
  t.observe(0, 0);
  t.observe(10, 4_000);
  assert.equal(t.seconds(100), null);
  t.observe(12, 5_000);
  // 12 in 5 s: 88 left at 2.4 a second.
  assert.equal(Math.round(t.seconds(100)!), Math.round(88 / 2.4));
});

test("the rate is the last minute's, so a step that slows down is judged by what it does now", () => {
  const t = new TimeLeft();
  for (let s = 0; s <= 120; s++) t.observe(s < 60 ? s * 10 : 600 + (s - 60), s * 1000);
  // Fast (10/s) for a minute, then slow (1/s): the estimate follows the slow rate.
  const left = t.seconds(2000)!;
  assert.ok(Math.abs(left - 1340) < 30, `estimated ${left} s, the slow rate gives 1340 s`);
});

test("a step that starts counting again from zero is a new phase, and a finished one has nothing left", () => {
  const t = new TimeLeft();
  t.observe(0, 0);
  t.observe(100, 10_000);
  t.observe(0, 11_000);
  assert.equal(t.seconds(100), null);
  t.observe(100, 20_000);
  assert.equal(t.seconds(100), 0);
});

test("no progress lately gives no estimate rather than an endless one", () => {
  const t = new TimeLeft();
  t.observe(5, 0);
  t.observe(5, 10_000);
  assert.equal(t.seconds(10), null);
});

test("durations are rounded as a person says them", () => {
  assert.equal(spokenDuration(3), "5 s");
  assert.equal(spokenDuration(42), "45 s");
  assert.equal(spokenDuration(95), "2 min");
  assert.equal(spokenDuration(59 * 60), "59 min");
  assert.equal(spokenDuration(80 * 60), "1 h 20 min");
  assert.equal(spokenDuration(120 * 60), "2 h");
});

test("without a terminal, a long step writes a line every half minute with the time left", (t) => {
  const lines: string[] = [];
  let now = 1_000_000;
  t.mock.method(Date, "now", () => now);
  const bar = progressBar("ingest", { isTTY: false, write: (s: string) => lines.push(s) });
  for (let i = 0; i <= 100; i++) {
    now = 1_000_000 + i * 1000;
    bar.update(i * 10, 2000);
  }
  bar.end();
  // At 30, 60 and 90 s: three lines, the last one 900/2000 at 10 a second (110 s left: "2 min").
  assert.deepEqual(lines, [
    "ingest: 300/2000 (15 %) · about 3 min left\n",
    "ingest: 600/2000 (30 %) · about 2 min left\n",
    "ingest: 900/2000 (45 %) · about 2 min left\n",
  ]);
});

test("on a terminal the bar carries the time left once there is an estimate", (t) => {
  const out: string[] = [];
  let now = 0;
  t.mock.method(Date, "now", () => now);
  const bar = progressBar("verify", { isTTY: true, write: (s: string) => out.push(s) });
  bar.update(0, 100);
  now = 10_000;
  bar.update(50, 100);
  assert.match(out.at(-1)!, /50\/100 · about 10 s left/);
  bar.end();
  assert.equal(out.at(-1), "\n");
});
