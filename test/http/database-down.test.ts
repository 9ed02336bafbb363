import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, connect, type Server, type Socket } from "node:net";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { isDatabaseUnreachable } from "../../src/db/unreachable.ts";
import type { Actor } from "../../src/core/actor.ts";
import { backends } from "../support/backends.ts";

/**
 * PostgreSQL stops answering while the server runs (a restart, a failover, a network cut): the server does not
 * die of it (a dropped connection it held between queries used to end the process), a request is answered 503
 * with a sentence saying the database did not answer and nothing was done, not "something went wrong", and once
 * the database is back the same server answers again without a restart.
 */
const pgLeg = (await backends()).find((b) => b.backend.name === "postgres")!;
const ADMIN: Actor = { kind: "user", id: "usr_admin", role: "admin" };

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, nothing listening) and opened again. */
async function relay(to: URL): Promise<{ port: number; cut(): Promise<void>; open(): Promise<void> }> {
  const [host, pgPort] = [to.hostname, Number(to.port || 5432)];
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = async () => {
    server = createServer((c) => {
      const u = connect(pgPort, host);
      for (const s of [c, u]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      c.pipe(u).pipe(c);
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  };
  await open();
  return {
    port,
    open,
    async cut() {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

test("PostgreSQL stops answering: a request is answered 503 saying so, and the server answers again once it is back", { skip: pgLeg.skip, timeout: 120_000 }, async () => {
  const fresh = await pgLeg.backend.fresh();
  const url = new URL(fresh.databaseUrl!);
  const r = await relay(url);
  url.host = `127.0.0.1:${r.port}`;
  const archive = await openArchive(loadConfig({ data: fresh.dataDir }, { DALIL_DATABASE_URL: url.toString() }));
  const http = await buildHttpApp(archive, { actorFor: () => ADMIN });
  try {
    const get = () => http.app.inject({ method: "GET", url: "/api/bodies" });
    assert.equal((await get()).statusCode, 200);

    await r.cut();
    const res = await get();
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers["retry-after"], "30");
    // the key is what the web app words in the reader's language (server-messages.test.ts: every key has both)
    const body = res.json() as { error: string; message: string; key: string };
    assert.equal(body.key, "request.databaseUnavailable");
    assert.match(body.message, /database is not answering, so this was not done/);
    // and the health check says so too, for a load balancer in front of several servers
    assert.equal((await http.app.inject({ method: "GET", url: "/api/health" })).statusCode, 503);

    await r.open();
    const back = await get();
    assert.equal(back.statusCode, 200, back.body);
  } finally {
    await http.app.close();
    await archive.close();
    await r.cut().catch(() => {});
    await fresh.cleanup();
  }
});

test("what counts as the database not answering, and what does not", () => {
  const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });
  for (const e of [
    withCode("ECONNREFUSED"),
    withCode("57P01", "terminating connection due to administrator command"),
    withCode("57P03", "the database system is starting up"),
    withCode("08006"),
    withCode("53300", "sorry, too many clients already"),
    withCode("SQLITE_BUSY", "database is locked"),
    new Error("Connection terminated unexpectedly"),
    new Error("timeout exceeded when trying to connect"),
  ]) assert.equal(isDatabaseUnreachable(e), true, e.message);
  for (const e of [withCode("23505", "duplicate key value violates unique constraint"), withCode("42P01", "relation does not exist"), new Error("boom"), "ECONNREFUSED", null]) {
    assert.equal(isDatabaseUnreachable(e), false, String(e));
  }
});
