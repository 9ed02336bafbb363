import { Option, type Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { getJob, listJobs, queueFixityAudit } from "../archive/index.ts";
import { globalOptions, print, withArchive } from "./shell.ts";

export function registerJobCommands(program: Command): void {
  const jobs = program.command("jobs").description("background work: list, show, schedule a fixity audit");
  jobs
    .command("list")
    .addOption(new Option("--status <status>", "queued | running | done | failed").choices(["queued", "running", "done", "failed"]))
    .action(async (o: { status?: "queued" | "running" | "done" | "failed" }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const list = await listJobs(a, operatorActor(), { status: o.status, limit: 50 });
        print(
          opts,
          list,
          list.map((j) => `${j.id}  ${j.kind.padEnd(24)} ${j.status.padEnd(8)} ${j.progress.done}/${j.progress.total}${j.error ? `  ${j.error}` : ""}`).join("\n") || "no jobs",
        );
      });
    });
  jobs
    .command("show <id>")
    .action(async (id: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => print(opts, await getJob(a, operatorActor(), id)));
    });
  jobs
    .command("fixity")
    .description("queue a fixity audit of every stored object (a worker or `dalil serve` runs it)")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const { id } = await queueFixityAudit(a, operatorActor());
        print(opts, { id }, `queued fixity audit ${id}`);
      });
    });
}
