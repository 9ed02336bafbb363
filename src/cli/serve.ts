import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { writeDemoCard } from "../archive/index.ts";
import { ingestCard } from "../archive/index.ts";
import type { Archive } from "../app/context.ts";
import { Invalid } from "../core/errors.ts";
import { furnishDemo, seedDemo } from "./demo.ts";
import { demoReviewer } from "./exhibition.ts";
import { buildDemoExhibition } from "../exhibitions/index.ts";
import { scheduleCopyAudits } from "../mirror/index.ts";
import { globalOptions, print, progressBar, withArchive, positiveIntOption } from "./shell.ts";
import { say } from "../core/messages.ts";

interface ServeOptions {
  port: number;
  host: string;
  worker: boolean;
  trustProxy?: string | true;
  origin?: string[];
}

/**
 * `--trust-proxy` alone: a TLS proxy on this machine (loopback addresses); `--trust-proxy 10.0.0.5,10.0.0.6`:
 * the proxies at those addresses (or CIDR ranges). Only requests arriving from them have their X-Forwarded-For
 * (the client's address, for per-client throttling), X-Forwarded-Proto (https: `__Host-` Secure cookies and
 * HSTS) and X-Forwarded-Host believed. Without the option every forwarded header is ignored.
 */
export function trustProxySetting(value: string | true | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === true) return ["loopback"];
  const list = value.split(",").map((x) => x.trim()).filter(Boolean);
  if (list.length === 0) throw new Invalid(say("cli.trustProxy"), "trust-proxy");
  return list;
}

async function serveUntilSignal(a: Archive, o: ServeOptions): Promise<void> {
  const { port, host } = o;
  // Loaded here, not with the CLI: every other command would load fastify and every route for nothing.
  const { buildHttpApp } = await import("../http/app.ts");
  const { app } = await buildHttpApp(a, {
    ...(o.trustProxy !== undefined ? { trustProxy: trustProxySetting(o.trustProxy) } : {}),
    ...(o.origin?.length ? { origins: o.origin } : {}),
  });
  await app.listen({ port, host });
  process.stderr.write(`dalil: serving ${a.db.dialect} archive at http://${host === "0.0.0.0" ? "localhost" : host}:${port}/\n`);
  const stop = new AbortController();
  // each copy named in DATA/copies.json has its own audit job (src/mirror/copy-jobs.ts)
  if (o.worker) await scheduleCopyAudits(a);
  const worker = o.worker ? a.jobs.work({ signal: stop.signal }) : Promise.resolve(0);
  // Checkpoints follow the log while serving, so what was committed is soon covered by a signed head.
  const signer = setInterval(() => void a.tree.checkpoint().catch((err: Error) => a.logger.log("warn", "checkpoint failed", { error: err.message })), 10_000);
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  stop.abort();
  clearInterval(signer);
  await app.close();
  await worker;
}

export function registerServeCommands(program: Command): void {
  program
    .command("serve")
    .description("web app and API")
    .option("--port <port>", "port to listen on", positiveIntOption("--port"), 8080)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--no-worker", "do not run jobs in this process (run `dalil worker` elsewhere)")
    .option(
      "--trust-proxy [addresses]",
      "behind a TLS reverse proxy: believe its X-Forwarded-For/-Proto/-Host (no value: a proxy on this machine; or its comma-separated addresses)",
    )
    .option("--origin <url...>", "public origins (https://archive.example) accepted on state-changing requests")
    .action(async (o: ServeOptions, cmd: Command) => {
      await withArchive(globalOptions(cmd), (a) => serveUntilSignal(a, o));
    });

  program
    .command("worker")
    .description("run jobs only (scale-out: several workers share the queue)")
    .option("--once", "run what is queued, then exit")
    .action(async (o: { once?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const stop = new AbortController();
        process.once("SIGINT", () => stop.abort());
        process.once("SIGTERM", () => stop.abort());
        await scheduleCopyAudits(a);
        const ran = await a.jobs.work({ once: Boolean(o.once), signal: stop.signal });
        print(opts, { ran }, `ran ${ran} job(s)`);
      });
    });

  program
    .command("start")
    .description("the archive with demo data: create it, take in a synthetic card once, serve")
    .option("--port <port>", "port to listen on", positiveIntOption("--port"), 8080)
    .option("--bodies <n>", "bodies on the demo card", positiveIntOption("--bodies"), 12)
    .action(async (o: { port: number; bodies: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const card = join(a.config.dataDir, "demo-card");
        const sources = await a.db.db.selectFrom("sources").select("id").limit(1).execute();
        let newSource: string | null = null;
        if (sources.length === 0) {
          if (!existsSync(join(card, "truth.json"))) {
            const bar = progressBar("demo card");
            await writeDemoCard(card, { bodies: o.bodies, seed: "demo", withFaults: true }, (d, t) => bar.update(d, t));
            bar.end();
          }
          const bar = progressBar("ingest");
          const s = await ingestCard(a, operatorActor(), { path: card, label: "demo card (synthetic)" }, (p) => bar.update(p.done, p.total));
          bar.end();
          process.stderr.write(`dalil: demo card taken in: ${s.ingested} ingested, ${s.duplicates} duplicates, ${s.quarantined} quarantined\n`);
          newSource = s.source;
        }
        const demo = await seedDemo(a, newSource);
        if (demo.accounts.length > 0) {
          process.stderr.write(
            "dalil: demo accounts created — sign in with one of these and its one-time password (shown only now); you will\n" +
              "       choose a new password and, for these roles, enrol an authenticator app for the second factor:\n" +
              demo.accounts.map((x) => `         ${x.email.padEnd(26)} ${x.role.padEnd(18)} ${x.oneTimePassword}\n`).join(""),
          );
        }
        if (demo.groupingJob) process.stderr.write("dalil: the demo card's photographs are being grouped into bodies (the investigator's proposals)\n");
        if (newSource) {
          const ex = await buildDemoExhibition(a, operatorActor(), (await demoReviewer(a)).actor);
          process.stderr.write(`dalil: a demonstration exhibition (${ex.ref}) is published at /exhibitions/${ex.ref}/\n`);
        }
        await furnishDemo(a, (line) => process.stderr.write(`dalil: ${line}\n`));
        await serveUntilSignal(a, { port: o.port, host: "127.0.0.1", worker: true });
      }, { create: true });
    });
}
