import type { Command } from "commander";
import type { Archive } from "../app/context.ts";
import { operatorActor, type Actor } from "../core/actor.ts";
import { addUser, listUsers } from "../access/index.ts";
import { buildDemoExhibition, exportExhibition, listExhibitions, showExhibition } from "../exhibitions/index.ts";
import { globalOptions, print, withArchive } from "./shell.ts";

/** `dalil exhibition …`: list, show and export exhibitions, and build the demo one, from the server's shell. */
export const DEMO_REVIEWER = "curator@demo.dalil";

/**
 * The demo's second person: the demo curator's account (created when missing). The operator prepares the demo
 * exhibition at the console and the demo curator's account reviews it: a demonstration, on synthetic photographs.
 */
export async function demoReviewer(a: Archive): Promise<{ actor: Actor; oneTimePassword: string | null }> {
  const found = (await listUsers(a, operatorActor())).find((u) => u.email === DEMO_REVIEWER);
  if (found) return { actor: { kind: "user", id: found.id, role: found.role }, oneTimePassword: null };
  const { user, oneTimePassword } = await addUser(a, operatorActor(), { email: DEMO_REVIEWER, role: "curator" });
  return { actor: { kind: "user", id: user.id, role: user.role }, oneTimePassword };
}

export function registerExhibitionCommands(program: Command): void {
  const exhibition = program.command("exhibition").description("exhibitions: curated, redacted, consented selections for the public");

  exhibition
    .command("list")
    .description("list exhibitions with their state")
    .action(async (_o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const list = await listExhibitions(a, operatorActor());
        print(opts, list, list.map((x) => `${x.ref}  ${x.status.padEnd(9)} ${x.items} item(s)  ${x.title.en ?? x.title.ar ?? ""}`).join("\n") || "no exhibitions");
      });
    });

  exhibition
    .command("show <id>")
    .description("an exhibition's items, layers, regions, reviews and consent (by reference X-0001 or id)")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const v = await showExhibition(a, operatorActor(), id);
        const lines = [`${v.summary.ref} ${v.summary.status} — ${v.summary.title.en ?? v.summary.title.ar ?? ""}`];
        for (const it of v.items) {
          const on = Object.entries(it.layers).filter(([, x]) => x !== false && x !== "off").map(([k, x]) => (x === true ? k : `${k}:${String(x)}`));
          lines.push(`  ${String(it.position).padStart(2)} ${it.kind.padEnd(5)} ${it.sha256 ?? ""}  layers ${on.join(",") || "none"}  ${it.regions.length} region(s)  ${it.reviewed?.current ? "reviewed" : "not reviewed"}  consent ${it.consent}`);
        }
        print(opts, v, lines.join("\n"));
      });
    });

  exhibition
    .command("export <id> <outDir>")
    .description("write a published exhibition as a static folder (HTML, images, manifest.json, VERIFY.txt); reproducible")
    .action(async (id: string, outDir: string, _o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await exportExhibition(a, operatorActor(), { exhibition: id, out: outDir });
        print(opts, r, `exhibition ${r.ref} exported to ${r.out}: ${r.images} image(s)${r.withheld ? `, ${r.withheld} item(s) left out for want of consent` : ""}; manifest sha256 ${r.manifestSha256}`);
      });
    });

  exhibition
    .command("demo")
    .description("build, review and publish a small exhibition from the archive's photos using every redaction layer (synthetic data)")
    .action(async (_o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const reviewer = await demoReviewer(a);
        const ex = await buildDemoExhibition(a, operatorActor(), reviewer.actor);
        if (reviewer.oneTimePassword) process.stderr.write(`dalil: the demo's reviewer ${DEMO_REVIEWER} (curator) was created; one-time password ${reviewer.oneTimePassword}\n`);
        print(opts, ex, `exhibition ${ex.ref} published with ${ex.items} item(s): dalil serve, then open /exhibitions/${ex.ref}/`);
      });
    });
}
