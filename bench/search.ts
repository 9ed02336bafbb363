import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import type { Archive } from "../src/app/context.ts";
import type { Actor } from "../src/core/actor.ts";
import { searchBodies, Vocabularies, type SearchQuery, type SearchResult } from "../src/catalogue/index.ts";
import { bodySearchText, findingCodesText } from "../src/catalogue/search-index.ts";
import { normaliseNumber } from "../src/catalogue/numbers.ts";
import { cdb, type BodiesTable, type BodyNumbersTable } from "../src/catalogue/tables.ts";
import { localHttp, pct, row, timedFromAnotherProcess } from "./support.ts";

/**
 * Search at the scale of the case: 11,000 bodies, 55,000 photos (rows only: search never reads image bytes),
 * three numbers a body, findings, marks and Arabic notes; 20,000 missing-person reports when the families
 * tables exist. Typical faceted queries are timed in-process and over HTTP (a real listen on 127.0.0.1, one
 * keep-alive connection), each beside a baseline measured in the same run: a bare `select count(*)` round
 * trip in-process, GET /api/health over HTTP. Target: p95 ≤ 20 ms over HTTP. SQLite and PostgreSQL (when
 * DALIL_BENCH_DATABASE_URL or the test server answers); BENCH_SEARCH_DB=sqlite or postgres runs one.
 */
/** The issue's target: p95 ≤ 20 ms over HTTP, held at ten times the card (BENCH_BODIES_SEARCH=110000 BENCH_REPORTS=200000). */
const TARGET_P95_MS = 20;

const INVESTIGATOR: Actor = { kind: "user", id: "usr_bench", role: "investigator" };

/** A small deterministic generator: the same data every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const GIVEN = ["محمد", "أحمد", "محمود", "مصطفى", "علي", "حسن", "حسين", "عمر", "خالد", "يوسف", "إبراهيم", "عبد الله", "عبد الرحمن", "سامر", "وائل", "مازن", "فراس", "باسل", "رامي", "طارق"];
const FAMILY = ["الخطيب", "الحلبي", "الشامي", "المصري", "العلي", "الأحمد", "الحمصي", "الدرعاوي", "الحموي", "الإدلبي", "النجار", "الحداد", "السيد", "القاسم", "الزعبي", "المحمد", "العمر", "الحسن", "البكور", "الرفاعي"];
const NOTES = [
  "آثار ضرب على الظهر والبطن",
  "حروق متعددة على الساعدين",
  "هزال شديد وجروح ملتهبة غير معالجة",
  "آثار قيود على المعصمين",
  "آثار خنق حول العنق",
  "كسور في الأصابع",
  "Signs of prolonged starvation",
  "Bruising consistent with beating",
];
const FINDINGS = ["blunt_force", "patterned_injury", "burn_thermal", "burn_cigarette", "burn_electrical", "ligature", "restraint_marks", "eye_injury", "emaciation", "untreated_wound", "fracture", "mutilation", "dental_injury"];
const BRANCHES: [string, number][] = [["215", 30], ["227", 20], ["235", 16], ["248", 12], ["251", 10], ["216", 4], ["220", 3], ["290", 3], ["291", 2]];
const HOSPITALS: [string, number][] = [["601", 65], ["tishreen", 30], ["harasta", 5]];
const MARKS = [
  { type: "scar", region: "arm_left", description: "scar left forearm" },
  { type: "tattoo", region: "arm_right", description: "وشم مرساة على الذراع اليمنى" },
  { type: "mole", region: "face", description: "mole left cheek" },
  { type: "missing_tooth", region: "mouth", description: "missing upper front tooth" },
];

function weighted<T>(r: () => number, list: [T, number][]): T {
  const total = list.reduce((s, [, w]) => s + w, 0);
  let x = r() * total;
  for (const [v, w] of list) if ((x -= w) < 0) return v;
  return list[list.length - 1]![0];
}

export async function generateBenchData(a: Archive, bodies: number, photosPerBody: number): Promise<{ detaineeNos: string[] }> {
  const r = rng(20140120);
  const vocab = await Vocabularies.load(a.db.db);
  const now = new Date("2026-01-01T00:00:00Z").toISOString();
  const detaineeNos: string[] = [];
  await a.db.db
    .insertInto("sources")
    .values({ id: "src_bench", label: "bench", kind: "folder", intake_path: "/bench", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: "bench", files: 0, ingested: 0, duplicates: 0, quarantined: 0, bytes: 0 })
    .execute();
  const start = Date.parse("2011-03-15T00:00:00Z");
  const span = Date.parse("2013-08-31T00:00:00Z") - start;
  const BATCH = 250;
  for (let b0 = 0; b0 < bodies; b0 += BATCH) {
    const n = Math.min(BATCH, bodies - b0);
    const bodyRows: BodiesTable[] = [];
    const searchRows: { ref_no: number; search_text: string }[] = [];
    const photoRows: Record<string, unknown>[] = [];
    const originals: Record<string, unknown>[] = [];
    const numberRows: BodyNumbersTable[] = [];
    const findingRows: { body_id: string; code: string; source: string; added_at: string; added_by: string }[] = [];
    for (let i = 0; i < n; i++) {
      const k = b0 + i + 1;
      const id = `bod_bench${String(k).padStart(8, "0")}`;
      const day = new Date(start + Math.floor(r() * span));
      const photoDate = day.toISOString().slice(0, 10);
      const branch = weighted(r, BRANCHES);
      const hospital = weighted(r, HOSPITALS);
      const detainee = String(1000 + Math.floor(r() * 98000));
      detaineeNos.push(detainee);
      const examiner = `${1000 + Math.floor(r() * 5000)}${hospital === "tishreen" ? "/ب" : ""}`;
      const named = r() < 0.15;
      const nameAr = named ? `${GIVEN[Math.floor(r() * GIVEN.length)]} ${GIVEN[Math.floor(r() * GIVEN.length)]} ${FAMILY[Math.floor(r() * FAMILY.length)]}` : null;
      const marks = r() < 0.5 ? [MARKS[Math.floor(r() * MARKS.length)]!] : [];
      const notes = r() < 0.4 ? NOTES[Math.floor(r() * NOTES.length)]! : null;
      const findings = [...new Set(Array.from({ length: Math.floor(r() * 3) }, () => FINDINGS[Math.floor(r() * FINDINGS.length)]!))];
      const shas = Array.from({ length: photosPerBody }, (_, p) => randomBytes(32).toString("hex") + String(p).slice(0, 0));
      const body: BodiesTable = {
        id, ref: `B-${String(k).padStart(6, "0")}`, ref_no: k, external_ref: null, source_id: "src_bench",
        detainee_no: detainee, detainee_no_norm: detainee, branch_no: branch, branch_no_norm: branch, examiner_no: examiner, examiner_no_norm: normaliseNumber(examiner),
        hospital, photo_date: photoDate, photo_month: photoDate.slice(0, 7), death_date: null, death_date_earliest: null, death_date_latest: null,
        sex: r() < 0.97 ? "male" : "female", age_min: 20, age_max: 35, marks: JSON.stringify(marks), clothing: null,
        identification_status: named ? "identified" : "unidentified", name_ar: nameAr, name_lat: null,
        review_status: r() < 0.11 ? "reviewed" : "unreviewed", notes, sensitivity: "restricted", merged_into: null, finding_codes: findingCodesText(findings),
        version: 1, created_at: now, created_by: "bench", updated_at: now,
      };
      searchRows.push({ ref_no: k, search_text: bodySearchText(
        { body, numbers: [detainee, branch, examiner], findings, photos: shas.map((sha256) => ({ sha256, captureTime: `${photoDate}T10:00:00+03:00`, cameraModel: "D90" })) },
        vocab,
      ) });
      bodyRows.push(body);
      shas.forEach((sha256, p) => {
        originals.push({
          sha256, size: 500_000, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: now, first_source_id: "src_bench",
          width: 1600, height: 1200, phash: null, capture_time: `${photoDate}T10:0${p}:00+03:00`, camera_make: "NIKON", camera_model: "D90", camera_serial: null, metadata_json: null, exif_raw: null, xmp_raw: null,
        });
        photoRows.push({ body_id: id, original_sha256: sha256, role: p === 0 ? "card" : "other", position: p + 1, added_at: now, added_by: "bench" });
      });
      (["detainee", "branch", "examiner"] as const).forEach((role, j) => {
        const value = role === "detainee" ? detainee : role === "branch" ? branch : examiner;
        numberRows.push({
          id: `num_bench${k}_${j}`, seq: k * 3 + j, body_id: id, role, value, value_norm: normaliseNumber(value), source_sha256: shas[0]!, method: "ocr", confidence: 0.95, origin: "bench",
          entered_by: "system:ocr:bench", entered_at: now, checked_by: null, checked_at: null, retired_at: null, retired_by: null, retired_reason: null,
        });
      });
      for (const code of findings) findingRows.push({ body_id: id, code, source: "observed", added_at: now, added_by: "bench" });
    }
    await a.db.transaction(async (tx) => {
      const db = cdb(tx);
      for (let i = 0; i < originals.length; i += 500) await tx.insertInto("originals").values(originals.slice(i, i + 500) as never).execute();
      await db.insertInto("bodies").values(bodyRows).execute();
      await db.insertInto("body_search").values(searchRows).execute();
      for (let i = 0; i < photoRows.length; i += 500) await db.insertInto("body_photos").values(photoRows.slice(i, i + 500) as never).execute();
      await db.insertInto("body_numbers").values(numberRows).execute();
      if (findingRows.length) await db.insertInto("body_findings").values(findingRows).execute();
    });
  }
  await cdb(a.db.db).updateTable("ref_counters").set({ next: bodies + 1 }).where("name", "=", "body").execute();
  // PostgreSQL: as autovacuum leaves tables soon after a bulk load (it vacuums on inserts since version 13), so
  // that the word index is read from the index alone, as a running archive reads it; timing the minute before
  // would measure the load's aftermath, not a search.
  if (a.db.dialect === "postgres") await sql`vacuum analyze`.execute(a.db.db);
  else await sql`analyze`.execute(a.db.db);
  return { detaineeNos };
}

/**
 * Missing-person reports as rows (the families module's table, when its migration is present): search does not
 * read them, but an archive at the case's scale holds them, so the database is that size. Null when absent.
 */
export async function generateReports(a: Archive, n: number): Promise<number | null> {
  const tables = await a.db.db.introspection.getTables();
  if (!tables.some((t) => t.name === "family_reports")) return null;
  const r = rng(17000);
  const now = new Date("2026-01-01T00:00:00Z").toISOString();
  for (let i0 = 0; i0 < n; i0 += 500) {
    const rows = Array.from({ length: Math.min(500, n - i0) }, (_, j) => {
      const k = i0 + j + 1;
      const arrest = new Date(Date.parse("2011-03-15T00:00:00Z") + Math.floor(r() * 8e10)).toISOString().slice(0, 10);
      return {
        id: `rep_bench${String(k).padStart(8, "0")}`,
        ref: `R-${String(k).padStart(6, "0")}`,
        name_ar: `${GIVEN[Math.floor(r() * GIVEN.length)]} ${GIVEN[Math.floor(r() * GIVEN.length)]} ${FAMILY[Math.floor(r() * FAMILY.length)]}`,
        sex: r() < 0.95 ? "male" : "female",
        arrest_date: arrest,
        arrest_earliest: arrest,
        arrest_latest: arrest,
        branch: weighted(r, BRANCHES),
        status: "open",
        created_at: now,
        created_by: "bench",
        updated_at: now,
      };
    });
    await a.db.db.insertInto("family_reports" as never).values(rows as never).execute();
  }
  return n;
}

async function time(fn: () => Promise<unknown>, runs: number): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

function toQuery(q: SearchQuery): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, String(x));
    else p.set(k, String(v));
  }
  return p.toString();
}

async function benchOne(label: string, a: Archive, runs: number): Promise<void> {
  const bodies = Number(process.env.BENCH_BODIES_SEARCH ?? 11_000);
  const t0 = process.hrtime.bigint();
  const { detaineeNos } = await generateBenchData(a, bodies, 5);
  const genSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const reports = await generateReports(a, Number(process.env.BENCH_REPORTS ?? 20_000));
  console.log(
    `  ${label}: ${bodies.toLocaleString("en")} bodies, ${(bodies * 5).toLocaleString("en")} photos, ${(bodies * 3).toLocaleString("en")} numbers` +
      `${reports === null ? "" : `, ${reports.toLocaleString("en")} missing-person reports`} generated in ${genSeconds.toFixed(1)} s` +
      `${reports === null ? "; no families tables in this archive: the reports part is skipped" : ""}`,
  );

  // A page deep in the results: the cursor of page 100 (50 a page), reached by walking.
  let deep: string | undefined;
  for (let i = 0; i < 100; i++) {
    const r: SearchResult = await searchBodies(a, INVESTIGATOR, { sort: "photo_date", limit: 50, after: deep, facets: false });
    if (!r.next) break;
    deep = r.next;
  }
  const queries: [string, SearchQuery][] = [
    ["landing: no text, all facets", {}],
    ["name محمد + facets", { q: "محمد" }],
    ["exact detainee number", { q: detaineeNos[Math.floor(detaineeNos.length / 2)]! }],
    ["branch 215 + month", { branch: ["215"], period: ["2012-05"] }],
    ["601 + burns, newest first", { hospital: ["601"], finding: ["burn"], sort: "-photo_date" }],
    ["احمد الخطيب + 2 facets", { q: "احمد الخطيب", branch: ["215", "227"], hospital: ["601", "tishreen"] }],
    ["prefix مح*", { q: "مح*" }],
    ["page 101 (after 5,000 rows)", { sort: "photo_date", limit: 50, after: deep, facets: false }],
  ];

  // After any change to a body, the next search reloads the in-memory facet index: measured on its own.
  const reloads: number[] = [];
  for (let i = 0; i < 10; i++) {
    await cdb(a.db.db).updateTable("bodies").set({ updated_at: new Date(Date.UTC(2026, 0, 2, 0, 0, i)).toISOString() }).where("ref_no", "=", i + 1).execute();
    const t = process.hrtime.bigint();
    await searchBodies(a, INVESTIGATOR, {});
    reloads.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const base = await time(() => sql`select count(*) as n from bodies`.execute(a.db.db), runs);
  row("baseline select count(*) p50/p95", `${pct(base, 50).toFixed(2)}/${pct(base, 95).toFixed(2)} ms`);
  row("first search after a change p50/max", `${pct(reloads, 50).toFixed(1)}/${Math.max(...reloads).toFixed(1)} ms`, { label: "count(*) p50", value: `${pct(base, 50).toFixed(2)} ms`, ratio: pct(reloads, 50) / pct(base, 50) });
  const inproc = new Map<string, number[]>();
  for (const [name, q] of queries) {
    const s = await time(() => searchBodies(a, INVESTIGATOR, q), runs);
    inproc.set(name, s);
    row(`in-process ${name}`, `${pct(s, 50).toFixed(1)}/${pct(s, 95).toFixed(1)} ms`, { label: "count(*) p50", value: `${pct(base, 50).toFixed(2)} ms`, ratio: pct(s, 50) / pct(base, 50) });
  }

  const http = await localHttp(a, INVESTIGATOR);
  const get = http.get;
  try {
    const paths = ["/api/health", ...queries.map(([, q]) => `/api/search?${toQuery(q)}`)];
    /** Prints one client's timings, each query beside that client's GET /api/health; returns the worst p95. */
    const report = (client: string, byPath: Map<string, number[]>): number => {
      const health = byPath.get("/api/health")!;
      row(`baseline GET /api/health${client} p50/p95`, `${pct(health, 50).toFixed(2)}/${pct(health, 95).toFixed(2)} ms`);
      let worst = 0;
      queries.forEach(([name], i) => {
        const s = byPath.get(paths[i + 1]!)!;
        worst = Math.max(worst, pct(s, 95));
        row(`HTTP${client} ${name}`, `${pct(s, 50).toFixed(1)}/${pct(s, 95).toFixed(1)} ms`, { label: "health p50", value: `${pct(health, 50).toFixed(2)} ms`, ratio: pct(s, 50) / pct(health, 50) });
      });
      return worst;
    };
    const inServer = new Map<string, number[]>();
    for (const path of paths) inServer.set(path, await time(() => get(path), runs));
    const worst = report("", inServer);
    // The same requests from a client in a process of its own, as a browser is (the rows above share the
    // server's thread and heap with the client's fetch and JSON parsing).
    const worstApart = report(" from another process", await timedFromAnotherProcess(http.url, paths, runs));
    const verdict = (w: number) => `${w.toFixed(1)} ms (${w <= TARGET_P95_MS ? "met" : "NOT met"})`;
    console.log(
      `  ${label}: worst p95 over HTTP, target ≤ ${TARGET_P95_MS} ms: client in the server's process ${verdict(worst)}, client in another process ${verdict(worstApart)}; load average now ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
    );
  } finally {
    await http.close();
  }
}

export async function postgresUrl(): Promise<string | null> {
  const url = process.env.DALIL_BENCH_DATABASE_URL ?? process.env.DALIL_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("select 1");
    return url;
  } catch {
    return null;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function benchSearch(runs = Number(process.env.BENCH_RUNS ?? 40)): Promise<void> {
  // Timings are wall clock: on a shared machine they move with its load, printed here so a reader can judge.
  console.log(`\n# search (p50/p95 of ${runs} runs per query, after 3 warm-up runs; load average ${loadavg().map((x) => x.toFixed(1)).join(" ")})`);
  const data = mkdtempSync(join(tmpdir(), "dalil-bench-search-"));
  try {
    const only = process.env.BENCH_SEARCH_DB;
    if (only !== "postgres") {
      const a = await openArchive(loadConfig({ data }, {}));
      try {
        await benchOne("SQLite", a, runs);
      } finally {
        await a.close();
      }
    }
    if (only === "sqlite") return;
    const url = await postgresUrl();
    if (!url) {
      console.log("  PostgreSQL: not reachable, skipped");
      return;
    }
    const schema = `bench_${randomBytes(5).toString("hex")}`;
    const u = new URL(url);
    u.searchParams.set("schema", schema);
    const pdata = join(data, "pg");
    const p = await openArchive(loadConfig({ data: pdata }, { DALIL_DATABASE_URL: u.toString() }));
    try {
      await benchOne("PostgreSQL", p, runs);
    } finally {
      await p.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists "${schema}" cascade`);
      await c.end();
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
