import { test } from "node:test";
import assert from "node:assert/strict";
import type { CardNumbers } from "../../src/catalogue/card-numbers.ts";
import { proposeBodies } from "../../src/catalogue/grouping.ts";
import type { GroupingPhoto } from "../../src/catalogue/grouping.ts";

const T0 = Date.parse("2012-05-06T08:00:00+03:00");

function at(seconds: number): string {
  return new Date(T0 + seconds * 1000).toISOString();
}

function nums(detainee?: string, branch = "215", examiner = "1516", confidence = 0.95): CardNumbers {
  return { ...(detainee ? { detainee, branch, examiner } : {}), confidence: detainee ? confidence : 0, raw: "", digits: "latin" };
}

let seq = 0;
function photo(seconds: number, numbers?: CardNumbers, extra: Partial<GroupingPhoto> = {}): GroupingPhoto {
  seq++;
  const n = String(seq).padStart(4, "0");
  return { sha256: `sha-${n}`, path: `DCIM/100NCD90/DSC_${n}.JPG`, captureTime: at(seconds), ...(numbers ? { numbers } : {}), ...extra };
}

function shas(groups: { photos: string[] }[]): string[][] {
  return groups.map((g) => [...g.photos].sort());
}

test("shots seconds apart are one body, minutes apart the next, and the numbers are the group's", () => {
  seq = 0;
  const a = [photo(0, nums("26335")), photo(12, nums("26335")), photo(40, nums("26335"))];
  const b = [photo(400, nums("31461", "227", "1519")), photo(420, nums("31461", "227", "1519"))];
  const { groups } = proposeBodies([...b, ...a]);
  assert.deepEqual(shas(groups), [a.map((p) => p.sha256), b.map((p) => p.sha256)]);
  assert.deepEqual(groups[1]!.numbers, { detainee: "31461", branch: "227", examiner: "1519", agreement: 1 });
  assert.match(groups[1]!.reasons.join("\n"), /starts a new body because taken 6 min 0 s after the previous photo/);
  assert.match(groups[0]!.reasons.join("\n"), /card read on 3 of 3 photos: detainee No\. 26335/);
});

test("a different detainee number splits bodies even when the shots are close in time", () => {
  seq = 0;
  const ps = [photo(0, nums("26335")), photo(10, nums("26335")), photo(25, nums("98012", "227", "1519")), photo(35, nums("98012", "227", "1519"))];
  const { groups } = proposeBodies(ps);
  assert.equal(groups.length, 2);
  assert.match(groups[1]!.reasons.join("\n"), /another detainee No\.: 98012 after 26335/);
});

test("one character off, seconds later, is a misreading; minutes later it is another body", () => {
  seq = 0;
  const misread = [photo(0, nums("26335")), photo(10, nums("26385", "215", "1516", 0.6)), photo(20, nums("26335"))];
  const one = proposeBodies(misread).groups;
  assert.equal(one.length, 1);
  assert.equal(one[0]!.numbers.detainee, "26335");
  assert.ok(one[0]!.numbers.agreement < 1);
  assert.match(one[0]!.reasons.join("\n"), /DSC_0002\.JPG read detainee No\. 26385, one character from 26335/);

  seq = 0;
  const later = [photo(0, nums("26335")), photo(10, nums("26335")), photo(600, nums("26385", "215", "1517"))];
  assert.equal(proposeBodies(later).groups.length, 2);
});

test("photos without a reading follow the clock", () => {
  seq = 0;
  const ps = [photo(0, nums("26335")), photo(15), photo(30), photo(500), photo(520, nums("31461"))];
  const { groups } = proposeBodies(ps);
  assert.deepEqual(shas(groups), [["sha-0001", "sha-0002", "sha-0003"], ["sha-0004", "sha-0005"]]);
});

test("a near duplicate joins its original's group wherever it sits, and says so", () => {
  seq = 0;
  const ps = [
    photo(0, nums("26335"), { phash: "f0f0f0f0f0f0f0f0" }),
    photo(10, nums("26335"), { phash: "0123456789abcdef" }),
    photo(400, nums("31461"), { phash: "ffff0000ffff0000" }),
  ];
  // The copy comes after the next body's first shot in the camera's numbering, with its original's time.
  const copy = photo(0, undefined, { phash: "f0f0f0f0f0f0f0f1" });
  const { groups } = proposeBodies([...ps, copy]);
  assert.equal(groups.length, 2);
  assert.deepEqual(groups[0]!.photos, ["sha-0001", "sha-0002", "sha-0004"]);
  assert.match(groups[0]!.reasons.join("\n"), /DSC_0004\.JPG is a copy of DSC_0001\.JPG \(perceptual hashes 1 bits apart, same capture time\)/);
});

test("a similar picture taken at another time is not a copy", () => {
  seq = 0;
  const ps = [photo(0, nums("26335"), { phash: "f0f0f0f0f0f0f0f0" }), photo(500, undefined, { phash: "f0f0f0f0f0f0f0f1" })];
  assert.equal(proposeBodies(ps).groups.length, 2);
});

test("the same detainee number read again later merges into one body", () => {
  seq = 0;
  const ps = [photo(0, nums("26335")), photo(10, nums("26335")), photo(400, nums("31461")), photo(900, nums("26335")), photo(910, nums("26335"))];
  const { groups } = proposeBodies(ps);
  assert.deepEqual(shas(groups), [["sha-0001", "sha-0002", "sha-0004", "sha-0005"], ["sha-0003"]]);
  assert.match(groups[0]!.reasons.join("\n"), /merged as one body/);
});

test("camera order comes from folder and file number, not from the order given", () => {
  seq = 0;
  const a = photo(0, nums("26335"), { path: "DCIM/101NCD90/DSC_0001.JPG" });
  const b = photo(5, nums("26335"), { path: "DCIM/100NCD90/DSC_9999.JPG" });
  const { groups } = proposeBodies([a, b]);
  assert.deepEqual(groups[0]!.photos, [b.sha256, a.sha256]);
});

test("an empty card proposes nothing; clear-cut groups are surer than guessed ones", () => {
  assert.deepEqual(proposeBodies([]).groups, []);
  seq = 0;
  const clear = proposeBodies([photo(0, nums("26335")), photo(10, nums("26335")), photo(400, nums("31461"))]).groups;
  seq = 0;
  const vague = proposeBodies([photo(0), photo(10), photo(120)]).groups;
  assert.ok(Math.min(...clear.map((g) => g.confidence)) > Math.max(...vague.map((g) => g.confidence)));
});

test("the camera's clock decides, not the server's zone: shots a minute apart across a DST change are one body", () => {
  const before = process.env.TZ;
  process.env.TZ = "America/New_York"; // 2012-03-11 02:00 does not exist there: clocks jumped to 03:00
  try {
    seq = 0;
    const shots = [photo(0, nums("26335"), { captureTime: "2012-03-11T01:59:30" }), photo(0, nums("26335"), { captureTime: "2012-03-11T02:00:30" })];
    const { groups } = proposeBodies(shots);
    assert.equal(groups.length, 1, groups.map((g) => g.reasons.join("; ")).join(" | "));
    assert.match(groups[0]!.reasons.join("\n"), /from 2012-03-11 01:59:30 to 02:00:30 on the camera's clock/);
    // With an offset, the digits the camera wrote are still what is compared and reported.
    const zoned = proposeBodies([photo(0, nums("26335"), { captureTime: "2012-05-06T08:33:00+03:00" })]).groups;
    assert.match(zoned[0]!.reasons.join("\n"), /2012-05-06 08:33:00/);
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
});
