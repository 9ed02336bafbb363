import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Transaction,
} from "kysely";
import type { Database } from "./schema.ts";
import { migrateToLatest, type Dialect } from "./migrate.ts";

export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** Runs fn in one transaction; on SQLite it takes the write lock at BEGIN so two processes never deadlock. */
  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * PostgreSQL only: runs a fixed statement that each pooled connection parses and plans once, under `name`, for
   * reads asked many times a second (an inclusion proof). Kysely sends every statement to be parsed and planned
   * again. SQLite keeps every statement prepared by its text already.
   */
  prepared?<R>(name: string, text: string, values: unknown[]): Promise<R[]>;
}

/** SQLite's deferred BEGIN upgrades to a write lock late, and two writers can then fail with SQLITE_BUSY. */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(private readonly sqlite: SQLite.Database, cfg: ConstructorParameters<typeof SqliteDriver>[0]) {
    super(cfg);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  /**
   * After some errors (a full disk: SQLITE_FULL; an I/O error) SQLite has already rolled the transaction back by
   * itself: a second ROLLBACK would fail with "cannot rollback - no transaction is active" and that, not the full
   * disk, would be what the person reads (found by the fault harness).
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.sqlite.inTransaction) return;
    await super.rollbackTransaction(connection);
  }
}

/**
 * Kysely prepares every statement again each time it runs it; SQLite then parses and plans its text again (for the
 * custody log's multi-row inserts, tens of thousands of placeholders a batch). Prepared statements are kept by
 * their text, the most recently used few hundred, and reused when not in the middle of an iteration. SQLite
 * prepares a kept statement again by itself when the schema it was planned for has changed (a migration).
 */
const KEPT_STATEMENTS = 256;

function keepStatements(sqlite: SQLite.Database): { prepare(text: string): SQLite.Statement; close(): void } {
  const kept = new Map<string, SQLite.Statement>();
  const prepare = (text: string): SQLite.Statement => {
    const stmt = kept.get(text);
    if (stmt && !stmt.busy) {
      kept.delete(text);
      kept.set(text, stmt);
      return stmt;
    }
    const fresh = sqlite.prepare(text);
    if (!stmt) {
      kept.set(text, fresh);
      if (kept.size > KEPT_STATEMENTS) kept.delete(kept.keys().next().value as string);
    }
    return fresh;
  };
  return { prepare, close: () => sqlite.close() };
}

/**
 * SQLite's DDL is transactional, though Kysely's adapter says otherwise, so its migrator ran each statement on its
 * own. Now a run of migrations is one transaction, as on PostgreSQL: a process stopped in the middle of one leaves
 * none of it (half a migration could not be run again: its first table would already exist), and a new archive's
 * schema is written in one commit instead of one a statement (about 0.4 s less for every new archive).
 */
class MigratingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  private readonly cfg: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(private readonly sqlite: SQLite.Database) {
    const cfg = { database: keepStatements(sqlite) };
    super(cfg);
    this.cfg = cfg;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqlite, this.cfg);
  }
  override createAdapter(): SqliteAdapter {
    return new MigratingSqliteAdapter();
  }
}

export interface OpenDatabaseOptions {
  /** postgres://… URL; absent → SQLite at sqlitePath. A `schema` query parameter selects a PostgreSQL schema. */
  url?: string;
  sqlitePath: string;
  migrate?: boolean;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const url = opts.url;
  let db: Db;
  let dialect: Dialect;
  let schemaName: string | undefined;
  let prepared: DatabaseHandle["prepared"];
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get("schema");
    schemaName = schema ?? undefined;
    parsed.searchParams.delete("schema");
    const types = {
      getTypeParser: ((oid: number, format?: string) => {
        // int8 and numeric counts fit in a double for every size this archive can reach (< 2^53).
        if (oid === 20) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format as "text");
      }) as typeof pg.types.getTypeParser,
    };
    const pool = new pg.Pool({
      connectionString: parsed.toString(),
      max: 8,
      // A request waits this long for a connection (all eight busy, or the server not answering) and is then
      // answered 503 with a sentence (isDatabaseUnreachable), instead of waiting for ever.
      connectionTimeoutMillis: 15_000,
      types,
      ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
    });
    // An idle connection the server drops (a restart, a failover, an administrator's pg_terminate_backend) is an
    // 'error' event on the pool; unheard, it ends the process with a stack trace (a worker died so when PostgreSQL
    // restarted). The pool has already discarded that client: the next query opens a new connection, and a query
    // in flight fails with its own error, which its caller reports.
    pool.on("error", () => {});
    // The same for a connection that is checked out but between queries (inside a transaction that is waiting on
    // a file, say) when the server drops it: unheard, its 'error' ended `dalil serve` (found by
    // test/http/database-down.test.ts). Its next query fails with its own error, the transaction rolls back, and
    // the pool does not take a client that can no longer query back.
    pool.on("connect", (client) => client.on("error", () => {}));
    if (schema) {
      const client = await pool.connect();
      try {
        await client.query(`create schema if not exists ${quoteIdent(schema)}`);
      } finally {
        client.release();
      }
    }
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    prepared = async <R>(name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows as R[];
    dialect = "postgres";
  } else {
    mkdirSync(dirname(opts.sqlitePath), { recursive: true, mode: 0o700 });
    privateFile(opts.sqlitePath);
    const sqlite = new SQLite(opts.sqlitePath);
    // First, so that every later statement (even switching to WAL) waits for another process's lock.
    sqlite.pragma("busy_timeout = 30000");
    sqlite.pragma("journal_mode = WAL");
    // Evidence records: a committed transaction must survive a power cut, so FULL, not NORMAL.
    sqlite.pragma("synchronous = FULL");
    sqlite.pragma("foreign_keys = ON");
    db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(sqlite) });
    dialect = "sqlite";
  }
  if (opts.migrate !== false) await migrateToLatest(db as unknown as Kysely<unknown>, dialect, schemaName);
  return {
    db,
    dialect,
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
    ...(prepared ? { prepared } : {}),
  };
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`not a valid schema name: ${name}`);
  return `"${name}"`;
}

/**
 * The database file holds personal data in the clear (reports, names, contacts): created 0600, and an existing one
 * readable by others is made private. SQLite gives its -wal and -shm files the database file's permissions.
 */
function privateFile(path: string): void {
  closeSync(openSync(path, "a", 0o600));
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}
