import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";

/**
 * The command line at its edges: a --data folder that holds no archive is refused (only `init` creates one),
 * files and folders that are not there are named in words, a CSV import names every problem of every row, and
 * a quarantined file taken in again is a duplicate sighting, not a second quarantine.
 */

for (const { backend, skip } of await backends()) {
  test(`dalil refuses a folder without an archive, names missing paths, lists every CSV problem, and counts a quarantined file seen again as a duplicate (${backend.name})`, { skip, timeout: 180_000 }, async () => {
    const fresh = await backend.fresh();
    const env: Record<string, string> = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
    const data = join(fresh.dataDir, "archive");
    const d = ["--data", data];
    try {
      // No archive yet: every command but init is refused with a sentence, and leaves nothing behind.
      for (const args of [["users", "list"], ["verify"], ["catalogue", "export"], ["log", "checkpoint"]]) {
        const r = await dalil([...d, ...args], env);
        assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        assert.equal(r.stderr, `dalil: There is no archive in ${data}. Name the archive's folder with --data (or DALIL_DATA), or create one there with \`dalil init --data ${data}\`.\n`);
        assert.equal(existsSync(data), false, `${args.join(" ")} created nothing`);
      }
      const init = await dalil([...d, "init"], env);
      assert.equal(init.code, 0, init.stderr);
      assert.equal((await dalil([...d, "users", "list"], env)).code, 0, "once created, the archive opens");

      // Files and folders that are not there, named in words.
      const gone = join(fresh.dataDir, "gone");
      const missing: [string[], RegExp][] = [
        [["catalogue", "import", join(gone, "bodies.csv")], /^dalil: There is no folder .*gone \(for .*bodies\.csv\)\.\n$/],
        [["families", "import", join(fresh.dataDir, "reports.csv")], /^dalil: There is no file or folder .*reports\.csv\.\n$/],
        [["catalogue", "export", join(gone, "out.csv")], /^dalil: There is no folder .*gone \(for .*out\.csv\)\.\n$/],
        [["sources", "seal", "src_x", "--identity-file", join(fresh.dataDir, "identity.txt")], /^dalil: There is no file or folder .*identity\.txt\.\n$/],
        [["verify-proof", "--proof", join(gone, "p"), "--leaf", join(gone, "l"), "--key", join(gone, "k")], /^dalil: There is no folder .*gone \(for .*\)\.\n$/],
        [["ingest", join(gone, "card")], /^dalil: There is no file or folder at .*card\.\n$/],
      ];
      for (const [args, message] of missing) {
        const r = await dalil([...d, ...args], env);
        assert.notEqual(r.code, 0, args.join(" "));
        assert.match(r.stderr, message, args.join(" "));
        assert.doesNotMatch(r.stderr, /ENOENT|ENOTDIR|errno/);
      }
      const notDir = await dalil([...d, "demo-card", join(data, "archive.sqlite", "card"), "--bodies", "1"], env);
      if (!fresh.databaseUrl) assert.match(notDir.stderr, /^dalil: .*archive\.sqlite\/card is not a folder \(or a part of its path is a file\)\.\n$/);

      // A CSV import names every problem of every row, not the first only.
      mkdirSync(gone, { recursive: true });
      const bodies = join(gone, "bodies.csv");
      writeFileSync(bodies, ["ref,detainee_no,branch_no,hospital,photo_date,sex", "P-1,abc,215,Mayo Clinic,2012-02-30,unknown", "P-2,1234,215,601,2012-03-14,male", "P-3,xyz,215,601,2012-03-14,x"].join("\n"));
      const cat = await dalil([...d, "catalogue", "import", bodies], env);
      assert.equal(cat.code, 2, cat.stderr);
      for (const line of ["row 2, detainee_no:", "row 2, hospital:", "row 2, photo_date:", "row 2, sex:", "row 4, detainee_no:", "row 4, sex:"]) assert.ok(cat.stdout.includes(line), `${line}\n${cat.stdout}`);
      const reports = join(gone, "reports.csv");
      writeFileSync(reports, ["ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks", "F-1,,,,,X,19x5,,,,", "F-2,سامر,,,,M,1990,2099-13,Atlantis,,"].join("\n"));
      const fam = await dalil([...d, "families", "import", reports], env);
      assert.equal(fam.code, 2, fam.stderr);
      for (const line of ["row 2, sex:", "row 2, name_ar:", "row 2, birth_year:", "row 3, arrest_date:", "row 3, arrest_governorate:"]) assert.ok(fam.stdout.includes(line), `${line}\n${fam.stdout}`);

      // A truncated JPEG is kept and quarantined once; the same file on another card is a duplicate sighting.
      const card = join(fresh.dataDir, "card", "DCIM", "100TEST");
      mkdirSync(card, { recursive: true });
      writeFileSync(join(card, "IMG_0001.JPG"), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF\0truncated")]));
      const first = await dalil([...d, "--json", "ingest", join(fresh.dataDir, "card"), "--source", "first card"], env);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout), { files: 1, ingested: 0, duplicates: 0, quarantined: 1, bytes: 20 });
      const again = await dalil([...d, "--json", "ingest", join(fresh.dataDir, "card"), "--source", "second card"], env);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { files: 1, ingested: 0, duplicates: 1, quarantined: 0, bytes: 20 });
    } finally {
      await fresh.cleanup();
    }
  });
}
