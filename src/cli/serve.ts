import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { buildHttpApp } from "../http/app.ts";
import { writeDemoCard } from "../archive/demo-card/index.ts";
import { ingestCard } from "../archive/intake.ts";
import type { Archive } from "../app/context.ts";
import { globalOptions, print, progressBar, withArchive, positiveIntOption } from "./shell.ts";

async function serveUntilSignal(a: Archive, port: number, host: string, withWorker: boolean): Promise<void> {
  const { app } = await buildHttpApp(a);
  await app.listen({ port, host });
  process.stderr.write(`dalil: serving ${a.db.dialect} archive at http://${host === "0.0.0.0" ? "localhost" : host}:${port}/\n`);
  const stop = new AbortController();
  const worker = withWorker ? a.jobs.work({ signal: stop.signal }) : Promise.resolve(0);
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  stop.abort();
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
    .action(async (o: { port: number; host: string; worker: boolean }, cmd: Command) => {
      await withArchive(globalOptions(cmd), (a) => serveUntilSignal(a, o.port, o.host, o.worker));
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
        }
        await serveUntilSignal(a, o.port, "127.0.0.1", true);
      });
    });
}
