import { CompiledQuery } from "kysely";
import type { Tx } from "./database.ts";
import type { Dialect } from "./migrate.ts";

/**
 * Many rows into one table in few statements: multi-row INSERTs as large as the database allows (SQLite caps a
 * statement's variables at 32766, PostgreSQL at 65535 parameters), built as text once per shape and run on the
 * caller's transaction. The query builder costs more per row than the database does at this volume (the custody
 * log appends thousands of rows per batch); the rows and the statement are the same either way.
 */
const MAX_PARAMS: Record<Dialect, number> = { sqlite: 32_000, postgres: 65_000 };
/** Rows per statement at most, however narrow the table (a statement's text grows with its rows). */
const MAX_ROWS = 5_000;

const texts = new Map<string, string>();

export async function insertRows(tx: Tx, dialect: Dialect, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const per = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS[dialect] / columns.length)));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const params: unknown[] = [];
    for (const r of chunk) for (const v of r) params.push(v);
    await tx.executeQuery(CompiledQuery.raw(statement(dialect, table, columns, chunk.length), params));
  }
}

function statement(dialect: Dialect, table: string, columns: readonly string[], count: number): string {
  const key = `${dialect}\u0000${table}\u0000${columns.join(",")}\u0000${count}`;
  let text = texts.get(key);
  if (!text) {
    const width = columns.length;
    const tuples: string[] = [];
    for (let r = 0; r < count; r++) {
      const cells: string[] = [];
      for (let c = 0; c < width; c++) cells.push(dialect === "postgres" ? `$${r * width + c + 1}` : "?");
      tuples.push(`(${cells.join(",")})`);
    }
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(",")}) values ${tuples.join(",")}`;
    // Only the shapes a batch size produces recur; keep the cache small.
    if (texts.size > 64) texts.clear();
    texts.set(key, text);
  }
  return text;
}
