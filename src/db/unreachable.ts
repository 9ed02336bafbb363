/**
 * Whether an error means the database did not answer (down, restarting, refusing connections, or every pooled
 * connection busy for longer than the pool waits), as opposed to a query that failed on its own. The HTTP shell
 * answers such a request with 503 and a sentence saying so, instead of "something went wrong".
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    // the socket to PostgreSQL
    if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"].includes(code)) return true;
    // PostgreSQL's own: class 08 (connection exception), shutting down or starting up, too many connections
    if (code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code)) return true;
    // SQLite still locked by another process after the busy timeout
    if (code === "SQLITE_BUSY") return true;
  }
  // node-postgres says these in words only
  return /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(err.message);
}
