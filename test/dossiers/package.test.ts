import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { BIN } from "../support/cli.ts";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { buildPackage, markInterrupted, writePackage } from "../../src/dossiers/package.ts";
import { custody } from "../../src/ledger/events.ts";
import { verifyPackage } from "../../src/dossiers/package-verify.ts";
import type { PackageIndex } from "../../src/dossiers/package.ts";
import { isCommitment, opens } from "../../src/ledger/openings.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends, tempDir } from "../support/backends.ts";
import { buildVerifyGo, goVerifierMissing, goVerifierSkip } from "../support/verify-go.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const actor = operatorActor();
const [sqlite] = (await backends()).filter((b) => b.backend.name === "sqlite");

async function archiveWithPhotos(seed: string): Promise<{ a: Awaited<ReturnType<typeof freshArchive>>; shas: string[] }> {
  const { dir } = await demoCard(2, false, seed);
  const a = await freshArchive(sqlite!.backend);
  await ingestCard(a.archive, actor, { path: dir, label: "card" });
  const rows = await a.archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "!=", "medium").orderBy("sha256").limit(3).execute();
  return { a, shas: rows.map((r) => r.sha256) };
}

const { a, shas } = await archiveWithPhotos("pkg-a");
const root = tempDir("dalil-pkg-");
const pkgDir = join(root, "pkg");
const built = await buildPackage(a.archive, actor, { originals: shas, recipient: "Office of the Prosecutor", purpose: "Case 12: Branch 215", out: pkgDir });

function dalil(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

process.on("exit", () => rmSync(root, { recursive: true, force: true }));

test("a package holds each exhibit's original, metadata, events with proofs, the checkpoint and key", async () => {
  assert.equal(built.exhibits, 3);
  const index = JSON.parse(readFileSync(join(pkgDir, "data/package.json"), "utf8")) as PackageIndex;
  assert.deepEqual(index.exhibits.map((e) => e.exhibit), ["E-0001", "E-0002", "E-0003"]);
  for (const [i, ex] of index.exhibits.entries()) {
    assert.equal(ex.sha256, shas[i]);
    assert.equal(createHash("sha256").update(readFileSync(join(pkgDir, ex.file))).digest("hex"), ex.sha256);
    const meta = JSON.parse(readFileSync(join(pkgDir, `data/${ex.exhibit}/metadata.json`), "utf8")) as { sha256: string };
    assert.equal(meta.sha256, ex.sha256);
    assert.ok(ex.events.length >= 1, "at least the ingestion");
    // The handover names every exhibit: it is among each one's events, and kept once, as every event is.
    assert.ok(ex.events.includes(built.handoverSeq), "the handover is among each exhibit's events");
    assert.ok(!existsSync(join(pkgDir, `data/${ex.exhibit}/events`)), "no per-exhibit copies of events");
    for (const seq of ex.events) {
      const leaf = readFileSync(join(pkgDir, `data/events/${seq}.json`));
      const stored = await a.archive.db.db.selectFrom("custody_events").select("leaf").where("seq", "=", seq).executeTakeFirstOrThrow();
      assert.ok(leaf.equals(stored.leaf), "exact leaf bytes");
      assert.ok(parseLeaf(leaf).objects.some((o) => o.sha256 === ex.sha256));
    }
    assert.ok(ex.events.some((s) => parseLeaf(readFileSync(join(pkgDir, `data/events/${s}.json`))).type === "ingestion"));
  }
  const handover = parseLeaf(readFileSync(join(pkgDir, `data/events/${built.handoverSeq}.json`)));
  assert.equal(handover.type, "export");
  // The typed words are commitments in the leaf; their openings ride beside it for the court.
  assert.ok(isCommitment(handover.detail.recipient) && isCommitment(handover.detail.purpose), "recipient and purpose are commitments");
  assert.ok(!readFileSync(join(pkgDir, `data/events/${built.handoverSeq}.json`), "utf8").includes("Prosecutor"));
  const openings = JSON.parse(readFileSync(join(pkgDir, `data/events/${built.handoverSeq}.openings.json`), "utf8")) as { field: string; salt: string; value: unknown }[];
  const opened = new Map(openings.map((o) => [o.field, o]));
  assert.equal(opened.get("detail.recipient")?.value, "Office of the Prosecutor");
  assert.equal(opened.get("detail.purpose")?.value, "Case 12: Branch 215");
  assert.ok(opens(handover.id, "detail.recipient", handover.detail.recipient as string, opened.get("detail.recipient")!));
  assert.ok(built.handoverSeq < built.checkpointSize, "the handover is logged before the package's checkpoint");
  assert.equal(readFileSync(join(pkgDir, "data/log/log.vkey"), "utf8"), `${a.archive.tree.verifierKey}\n`);
  assert.equal(readFileSync(join(pkgDir, "data/exhibits.csv"), "utf8").split("\r\n").length, 5, "header + 3 rows + final CRLF");
  const howTo = readFileSync(join(pkgDir, "VERIFY.txt"), "utf8");
  for (const step of [/sha256sum -c manifest-sha256\.txt/, /sha512sum -c manifest-sha512\.txt/, /openssl ts -verify -data data\/log\/checkpoint/, /dalil verify-proof --proof data\/events\//, /verify-go proof -vkey @data\/log\/log\.vkey/, /dalil package verify \./]) {
    assert.match(howTo, step);
  }
  const logged = await a.archive.log.eventsFor(shas[0]!);
  assert.ok(logged.some((e) => e.seq === built.handoverSeq), "the handover concerns every exhibit in the archive's own log");
});

test("our verifier and sha256sum/sha512sum -c accept the package", async () => {
  const v = await verifyPackage(pkgDir);
  assert.deepEqual(v.problems, []);
  assert.equal(v.ok, true);
  assert.equal(v.exhibits, 3);
  assert.equal(v.checkpoint?.size, built.checkpointSize);
  for (const [tool, file] of [["sha256sum", "manifest-sha256.txt"], ["sha512sum", "manifest-sha512.txt"], ["sha256sum", "tagmanifest-sha256.txt"]] as const) {
    const r = spawnSync(tool, ["-c", "--strict", file], { cwd: pkgDir, encoding: "utf8" });
    assert.equal(r.status, 0, `${tool} -c ${file}: ${r.stdout}${r.stderr}`);
  }
  // The two commands VERIFY.txt gives, run from the package directory; in parallel (each CLI start is slow).
  const ev = readdirSync(join(pkgDir, "data/events")).find((n) => /^\d+\.json$/.test(n))!;
  const [cli, vp] = await Promise.all([
    dalil(pkgDir, ["package", "verify", "."]),
    dalil(pkgDir, ["verify-proof", "--proof", `data/events/${ev.replace(".json", ".tlog-proof")}`, "--leaf", `data/events/${ev}`, "--key", "data/log/log.vkey"]),
  ]);
  assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  assert.match(cli.stdout, /^ok: 3 exhibit/);
  assert.equal(vp.code, 0, vp.stdout + vp.stderr);
  assert.match(vp.stdout, /^ok: leaf \d+ is in/);
});

const noGo = goVerifierMissing();

test("Go's sumdb/note and sumdb/tlog accept every event proof and the checkpoint of the package, run as VERIFY.txt says", { skip: goVerifierSkip(), timeout: 180_000 }, () => {
  assert.equal(noGo, null, `CI=true, so the Go verifier must run, but ${noGo}`);
  const bin = join(root, "verify-go");
  const build = buildVerifyGo(bin);
  assert.equal(build.status, 0, `build failed:\n${build.output}`);
  const go = (command: string, args: string[]) => spawnSync(bin, [command, "-vkey", "@data/log/log.vkey", ...args], { cwd: pkgDir, encoding: "utf8" });
  const cp = go("checkpoint", ["-checkpoint", "data/log/checkpoint"]);
  assert.equal(cp.status, 0, cp.stdout + cp.stderr);
  const seqs = readdirSync(join(pkgDir, "data/events")).filter((n) => /^\d+\.json$/.test(n)).map((n) => n.slice(0, -5));
  assert.ok(seqs.length >= 4, "the ingestions and the handover at least");
  for (const n of seqs) {
    const r = go("proof", ["-proof", `data/events/${n}.tlog-proof`, "-leaf", `data/events/${n}.json`]);
    assert.equal(r.status, 0, `entry ${n}: ${r.stdout}${r.stderr}`);
  }
  // And the Go tool refuses a leaf that is not the one proved.
  const [a1, a2] = seqs;
  const wrong = go("proof", ["-proof", `data/events/${a1}.tlog-proof`, "-leaf", `data/events/${a2}.json`]);
  assert.notEqual(wrong.status, 0, "another entry's bytes must not verify");
});

/** A fresh copy of the good package, tampered by fn, must fail verification with a problem matching re. */
async function tampered(name: string, fn: (dir: string) => void, re: RegExp, viaCli = false): Promise<string[]> {
  const dir = join(root, `t-${name.replace(/\W+/g, "-")}`);
  cpSync(pkgDir, dir, { recursive: true });
  fn(dir);
  const v = await verifyPackage(dir);
  assert.equal(v.ok, false, `${name} was not caught`);
  assert.ok(v.problems.some((p) => re.test(p)), `${name}: ${v.problems.join(" | ")}`);
  if (viaCli) {
    const cli = await dalil(dir, ["package", "verify", "."]);
    assert.equal(cli.code, 1, `${name}: CLI exit ${cli.code}`);
    assert.ok(v.problems.every((p) => cli.stdout.includes(p)), "the CLI names every problem");
  }
  return v.problems;
}

/** Rewrites the payload manifests over the current bytes, as a forger covering tracks would. */
function remanifest(dir: string): void {
  for (const alg of ["sha256", "sha512"]) {
    const file = join(dir, `manifest-${alg}.txt`);
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => {
      const path = l.slice(l.indexOf("  ") + 2);
      return `${createHash(alg).update(readFileSync(join(dir, path))).digest("hex")}  ${path}`;
    });
    writeFileSync(file, `${lines.join("\n")}\n`);
  }
  const tag = join(dir, "tagmanifest-sha256.txt");
  const lines = readFileSync(tag, "utf8").split("\n").filter(Boolean).map((l) => {
    const path = l.slice(l.indexOf("  ") + 2);
    return `${createHash("sha256").update(readFileSync(join(dir, path))).digest("hex")}  ${path}`;
  });
  writeFileSync(tag, `${lines.join("\n")}\n`);
}

function firstEvent(dir: string): string {
  const index = JSON.parse(readFileSync(join(dir, "data/package.json"), "utf8")) as PackageIndex;
  return join(dir, "data/events", `${index.exhibits[0]!.events[0]!}.json`);
}

test("tampering is caught and named: a changed byte in a photo", async () => {
  const index = JSON.parse(readFileSync(join(pkgDir, "data/package.json"), "utf8")) as PackageIndex;
  const file = index.exhibits[1]!.file;
  await tampered("photo byte", (d) => {
    const b = readFileSync(join(d, file));
    b[Math.floor(b.length / 2)]! ^= 1;
    writeFileSync(join(d, file), b);
  }, new RegExp(`${file.replace(/\./g, "\\.")} does not match its sha256`));
  // Re-manifested, the bag is valid but the photo no longer is the exhibit its events name.
  await tampered("photo byte, manifests rewritten", (d) => {
    const b = readFileSync(join(d, file));
    b[10]! ^= 1;
    writeFileSync(join(d, file), b);
    remanifest(d);
  }, /E-0002: .* hashes to [0-9a-f]{64}, not the exhibit's SHA-256/);
});

test("tampering is caught and named: a removed file and an extra file", async () => {
  await tampered("removed", (d) => rmSync(firstEvent(d).replace(".json", ".tlog-proof")), /events\/\d+\.tlog-proof is listed in manifest-sha256\.txt but missing/);
  await tampered("removed proof, re-manifested", (d) => {
    rmSync(firstEvent(d).replace(".json", ".tlog-proof"));
    const m = (alg: string): void => {
      const f = join(d, `manifest-${alg}.txt`);
      writeFileSync(f, readFileSync(f, "utf8").split("\n").filter((l) => !/events\/\d+\.tlog-proof$/.test(l) || existsSync(join(d, l.slice(l.indexOf("  ") + 2)))).join("\n"));
    };
    m("sha256");
    m("sha512");
    writeFileSync(join(d, "bag-info.txt"), readFileSync(join(d, "bag-info.txt"), "utf8"));
  }, /tlog-proof is missing/);
  await tampered("extra", (d) => writeFileSync(join(d, "data/E-0001/planted.jpg"), "x"), /data\/E-0001\/planted\.jpg is in data\/ but not in manifest-sha256\.txt/, true);
});

test("tampering is caught and named: an edited event, even with manifests rewritten", async () => {
  const edit = (d: string): void => {
    const f = firstEvent(d);
    writeFileSync(f, readFileSync(f, "utf8").replace(/"at":"[^"]+"/, '"at":"2013-01-01T00:00:00.000Z"'));
  };
  await tampered("event", edit, /events\/\d+\.json does not match its sha256/);
  await tampered("event re-manifested", (d) => {
    edit(d);
    remanifest(d);
  }, /events\/\d+\.json is not proved by .*bytes differ from the logged entry/);
});

test("tampering is caught and named: the handover's recipient changed in its opening, or its opening removed", async () => {
  const rel = `data/events/${built.handoverSeq}.openings.json`;
  await tampered("opening changed", (d) => {
    const list = JSON.parse(readFileSync(join(d, rel), "utf8")) as { field: string; value: unknown }[];
    for (const o of list) if (o.field === "detail.recipient") o.value = "Someone Else";
    writeFileSync(join(d, rel), JSON.stringify(list));
    const index = JSON.parse(readFileSync(join(d, "data/package.json"), "utf8")) as PackageIndex;
    writeFileSync(join(d, "data/package.json"), JSON.stringify({ ...index, recipient: "Someone Else" }));
    remanifest(d);
  }, /openings\.json: the opening of the recipient does not reproduce the commitment/);
  await tampered("opening removed", (d) => {
    rmSync(join(d, rel));
    for (const alg of ["sha256", "sha512"]) {
      const file = join(d, `manifest-${alg}.txt`);
      writeFileSync(file, readFileSync(file, "utf8").split("\n").filter((l) => !l.endsWith(rel)).join("\n"));
    }
  }, /holds the recipient as a commitment, and .* gives no opening of it/);
});

test("tampering is caught and named: a proof from another archive's log", async () => {
  const other = await archiveWithPhotos("pkg-b");
  try {
    const otherDir = join(root, "other");
    await buildPackage(other.a.archive, actor, { originals: other.shas.slice(0, 1), recipient: "x", purpose: "y", out: otherDir });
    const foreign = readdirSync(join(otherDir, "data/events")).find((n) => n.endsWith(".tlog-proof"))!;
    await tampered("foreign proof", (d) => {
      const target = firstEvent(d).replace(".json", ".tlog-proof");
      writeFileSync(target, readFileSync(join(otherDir, "data/events", foreign)));
      remanifest(d);
    }, /is against another checkpoint than data\/log\/checkpoint|not signed by any trusted key/);
    // A whole foreign package checked against the first archive's key: every proof refused.
    const v = await verifyPackage(otherDir, { trustedKeys: [a.archive.tree.verifierKey] });
    assert.equal(v.ok, false);
    assert.ok(v.problems.some((p) => /log\.vkey is not one of the keys you trust/.test(p)));
    assert.ok(v.problems.some((p) => /not signed by any trusted key|does not verify/.test(p)), v.problems.join(" | "));
  } finally {
    await other.a.close();
  }
});

test("a second package of the same photos holds the first handover once, not once per photo; a stray event file is caught", async () => {
  const second = join(root, "pkg-2");
  const r = await buildPackage(a.archive, actor, { originals: shas, recipient: "UN IIIM", purpose: "Case 12, second copy", out: second });
  const index = JSON.parse(readFileSync(join(second, "data/package.json"), "utf8")) as PackageIndex;
  for (const ex of index.exhibits) assert.ok(ex.events.includes(built.handoverSeq) && ex.events.includes(r.handoverSeq), "both handovers are among each photo's events");
  const files = readdirSync(join(second, "data/events"));
  const distinct = new Set(index.exhibits.flatMap((x) => x.events));
  assert.equal(files.length, distinct.size * 2 + 1, "each event once, with its proof, and the handover's openings");
  assert.equal(r.events, distinct.size);
  assert.deepEqual((await verifyPackage(second)).problems, []);
  await tampered("stray event", (d) => {
    writeFileSync(join(d, "data/events/999999.json"), readFileSync(firstEvent(d)));
    remanifest(d);
  }, /data\/events\/999999\.json is not among the events data\/package\.json gives/);
});

test("a build that fails after its handover was logged says so in the log: the same package, outcome failure, and why", async () => {
  const out = join(root, "pkg-fails");
  let planted = false;
  const onProgress = (_done: number, _total: number, note?: string): void => {
    // Once the photos are in, a plain file where the events folder must go makes the rest of the build fail.
    if (note === "exhibits" && !planted) {
      planted = true;
      writeFileSync(join(out, "data/events"), "in the way");
    }
  };
  await assert.rejects(buildPackage(a.archive, actor, { originals: shas.slice(0, 1), recipient: "r", purpose: "p", out, onProgress }), /EEXIST|ENOTDIR/);
  const exports = (await a.archive.log.eventsFor(shas[0]!)).filter((e) => e.event.type === "export").map((e) => e.event);
  const handover = exports[exports.length - 1]!;
  assert.equal(handover.outcome, "success");
  const pkg = handover.detail.package as string;
  const after = (await a.archive.log.eventsFor(pkg)).map((e) => e.event);
  assert.deepEqual(after.map((e) => [e.type, e.outcome]), [["export", "success"], ["export", "failure"]]);
  assert.equal(after[1]!.detail.completed, false);
  assert.match(String(after[1]!.detail.reason), /^E[A-Z]+$/, "the error's code, not a message that could name local paths");
});

test("after a crash, an attempt whose handover is logged but unfinished is marked interrupted, once; one never started is left alone", async () => {
  // What a process killed mid-build leaves: the handover in the log, nothing after it.
  const crashed = "pkg_crashed_a1";
  const handover = custody("export", actor, new Date(), [{ id: crashed, role: "package" }, { sha256: shas[0]!, role: "exhibit" }], { package: crashed, recipient: "r", purpose: "p" });
  await a.archive.db.transaction((tx) => a.archive.log.append(tx, handover));
  assert.deepEqual(await markInterrupted(a.archive, actor, [crashed, "pkg_never_started"]), [crashed]);
  assert.deepEqual(await markInterrupted(a.archive, actor, [crashed]), [], "marked once");
  const after = (await a.archive.log.eventsFor(crashed)).map((e) => e.event);
  assert.deepEqual(after.map((e) => [e.outcome, e.detail.reason ?? null]), [["success", null], ["failure", "interrupted"]]);
  await assert.rejects(writePackage(a.archive, actor, { items: [{ exhibit: "E-0001", sha256: shas[0]! }], recipient: "r", purpose: "p", out: join(root, "p0"), packageId: "../x" }), /not a package id/);
  assert.ok(!existsSync(join(root, "p0")), "refused before anything is written");
});

test("the same build run again after its process died resumes: the dead package's handover is marked interrupted, its partial bag cleared", async () => {
  // What `dalil package build --out DIR` leaves when killed after logging its handover: the marker, half a bag.
  const out = join(root, "pkg-killed");
  const dead = "pkg_killed_cli";
  mkdirSync(join(out, "data", "E-0001"), { recursive: true });
  writeFileSync(join(out, ".dalil-package-building"), `${JSON.stringify({ package: dead, startedAt: new Date().toISOString() })}\n`);
  writeFileSync(join(out, "data", "E-0001", "original.jpg"), "half a photo");
  const handover = custody("export", actor, new Date(), [{ id: dead, role: "package" }, { sha256: shas[0]!, role: "exhibit" }], { package: dead, recipient: "r", purpose: "p" });
  await a.archive.db.transaction((tx) => a.archive.log.append(tx, handover));

  const r = await buildPackage(a.archive, actor, { originals: shas.slice(0, 1), recipient: "r", purpose: "p", out });
  assert.equal(r.resumed, dead);
  assert.deepEqual((await verifyPackage(out)).problems, []);
  assert.ok(!existsSync(join(out, ".dalil-package-building")), "the marker is gone from the finished bag");
  assert.deepEqual((await a.archive.log.eventsFor(dead)).map((e) => [e.event.outcome, e.event.detail.reason ?? null]), [["success", null], ["failure", "interrupted"]]);
  // A marker that names no package is not guessed at.
  const odd = join(root, "pkg-odd");
  mkdirSync(odd);
  writeFileSync(join(odd, ".dalil-package-building"), "{}");
  await assert.rejects(buildPackage(a.archive, actor, { originals: shas.slice(0, 1), recipient: "r", purpose: "p", out: odd }), /marker .* cannot be read/);
});

test("only custodians build packages; bad input refused before anything is logged", async () => {
  const prosecutor: Actor = { kind: "user", id: "u_pros", role: "prosecutor" };
  const size = await a.archive.log.size();
  await assert.rejects(buildPackage(a.archive, prosecutor, { originals: shas, recipient: "r", purpose: "p", out: join(root, "p1") }), /may not do this \(package\.export\)/);
  await assert.rejects(buildPackage(a.archive, actor, { originals: shas, recipient: " ", purpose: "p", out: join(root, "p2") }), /recipient/);
  await assert.rejects(buildPackage(a.archive, actor, { originals: ["0".repeat(64)], recipient: "r", purpose: "p", out: join(root, "p3") }), /No original/);
  await assert.rejects(buildPackage(a.archive, actor, { originals: shas, recipient: "r", purpose: "p", out: pkgDir }), /not empty/);
  assert.equal(await a.archive.log.size(), size, "no handover logged for a refused package");
  await a.close();
});
