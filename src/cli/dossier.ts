import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import {
  addExhibit,
  buildDossierPackage,
  CLEARANCES,
  createDossier,
  EVIDENCE_KINDS,
  EXHIBIT_KINDS,
  freezeDossier,
  listDossiers,
  listVersions,
  markRegion,
  reviseReasoning,
  showDossier,
  withdrawExhibit,
  type Clearance,
  type DossierVersionView,
  type EvidenceRef,
  type ExhibitKind,
  type MarkRegion,
} from "../dossiers/index.ts";
import { globalOptions, positiveIntOption, print, progressBar, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/** `dalil dossier …`: cases, exhibits, versions and packages, from the server's shell as the operator. */
function evidence(v: string, prev: EvidenceRef[] = []): EvidenceRef[] {
  const i = v.indexOf(":");
  const kind = v.slice(0, i);
  if (i < 1 || !(EVIDENCE_KINDS as readonly string[]).includes(kind)) throw new Invalid(say("cli.evidenceOption", { kinds: EVIDENCE_KINDS.join(", "), value: v }), "--evidence");
  return [...prev, { kind: kind as EvidenceRef["kind"], ref: v.slice(i + 1) }];
}

function choice<T extends string>(flag: string, values: readonly T[]): (v: string) => T {
  return (v) => {
    if (!(values as readonly string[]).includes(v)) throw new Invalid(say("cli.oneOf", { flag, values: values.join(", "), value: v }), flag);
    return v as T;
  };
}

function versionText(d: DossierVersionView): string {
  const head = `dossier ${d.dossier.id} "${d.dossier.name}" — ${d.frozen ? `version ${d.version}, frozen ${d.frozen.at} by ${d.frozen.by}, sha256 ${d.frozen.sha256}` : `draft of version ${d.version}`}`;
  const lines = [head];
  for (const e of d.exhibits) {
    lines.push(`  ${e.number}  ${e.kind.padEnd(8)} ${e.ref}${e.status === "withdrawn" ? `  [withdrawn: ${e.withdrawn?.reason ?? ""}]` : ""}`);
    lines.push(`           ${e.reasoning.replace(/\n/g, "\n           ")}`);
  }
  return lines.join("\n");
}

export function registerDossierCommands(program: Command): void {
  const dossier = program.command("dossier").description("dossiers: cases with numbered exhibits, frozen versions and evidence packages");

  dossier
    .command("create")
    .description("create a dossier (a named case)")
    .requiredOption("--name <name>", "the case, e.g. “officers of Branch 215”")
    .option("--description <text>", "what the case is about")
    .action(async (o: { name: string; description?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const d = await createDossier(a, operatorActor(), { name: o.name, description: o.description ?? null });
        print(opts, d, `dossier ${d.id} created`);
      });
    });

  dossier
    .command("list")
    .description("list dossiers")
    .action(async (_o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const list = await listDossiers(a, operatorActor());
        print(opts, list, list.map((d) => `${d.id}  ${d.name}  (${d.frozenVersions} frozen version(s)${d.draftChanged ? ", draft changed" : ""})`).join("\n") || "no dossiers");
      });
    });

  dossier
    .command("add <id>")
    .description("select a record as an exhibit with the reasoning for it (a withdrawn record comes back under its old number)")
    .requiredOption("--kind <kind>", `one of ${EXHIBIT_KINDS.join(", ")}`, choice("--kind", EXHIBIT_KINDS))
    .requiredOption("--ref <ref>", "body id or reference (B-000123), photo SHA-256, review id, entity id")
    .requiredOption("--reasoning <text>", "which evidence ties this record to the case")
    .option("--evidence <kind:ref>", `evidence the reasoning rests on (repeatable; kind: ${EVIDENCE_KINDS.join(", ")})`, evidence)
    .action(async (id: string, o: { kind: ExhibitKind; ref: string; reasoning: string; evidence?: EvidenceRef[] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const e = await addExhibit(a, operatorActor(), { dossierId: id, kind: o.kind, ref: o.ref, reasoning: o.reasoning, ...(o.evidence ? { evidence: o.evidence } : {}) });
        print(opts, e, `${e.number}: ${e.kind} ${e.ref}`);
      });
    });

  dossier
    .command("reason <id> <number>")
    .description("replace an exhibit's reasoning (frozen versions keep theirs)")
    .requiredOption("--reasoning <text>", "the new reasoning")
    .option("--evidence <kind:ref>", "evidence (repeatable; replaces the exhibit's list when given)", evidence)
    .action(async (id: string, number: string, o: { reasoning: string; evidence?: EvidenceRef[] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const e = await reviseReasoning(a, operatorActor(), { dossierId: id, number, reasoning: o.reasoning, ...(o.evidence ? { evidence: o.evidence } : {}) });
        print(opts, e, `${e.number}: reasoning replaced`);
      });
    });

  dossier
    .command("remove <id> <number>")
    .description("withdraw an exhibit with a reason (its number stays and is never reused)")
    .requiredOption("--reason <text>", "why it is withdrawn")
    .action(async (id: string, number: string, o: { reason: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const e = await withdrawExhibit(a, operatorActor(), { dossierId: id, number, reason: o.reason });
        print(opts, e, `${e.number} withdrawn`);
      });
    });

  dossier
    .command("show <id> [version]")
    .description("the draft, or a frozen version exactly as frozen")
    .action(async (id: string, version: string | undefined, _o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      const n = version === undefined ? undefined : positiveIntOption("version")(version);
      await withArchive(opts, async (a) => {
        const d = await showDossier(a, operatorActor(), id, n);
        print(opts, d, versionText(d));
      });
    });

  dossier
    .command("freeze <id>")
    .description("freeze the draft as the next immutable version (its SHA-256 goes into the custody log)")
    .option("--note <text>", "what this version is for")
    .action(async (id: string, o: { note?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const v = await freezeDossier(a, operatorActor(), { id, note: o.note ?? null });
        print(opts, v, `version ${v.version} frozen: ${v.exhibits} exhibit(s), ${v.withdrawn} withdrawn, sha256 ${v.sha256}, log entry ${v.eventSeq}`);
      });
    });

  dossier
    .command("versions <id>")
    .description("the frozen versions of a dossier")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await listVersions(a, operatorActor(), id);
        print(opts, r, r.versions.map((v) => `v${v.version}  ${v.frozenAt}  ${v.frozenBy}  ${v.exhibits} exhibit(s), ${v.withdrawn} withdrawn  sha256 ${v.sha256}  log ${v.eventSeq}${v.note ? `  — ${v.note}` : ""}`).join("\n") || "no frozen version yet");
      });
    });

  dossier
    .command("package <id> <version>")
    .description("bag a frozen version for a recipient (originals, redacted or blurred copies); logs the handover")
    .requiredOption("--recipient <name>", "who receives it (logged)")
    .requiredOption("--clearance <c>", `${CLEARANCES.join(", ")}`, choice("--clearance", CLEARANCES))
    .requiredOption("--purpose <text>", "why it is handed over (logged)")
    .requiredOption("--out <dir>", "a new or empty directory")
    .option("--lang <lang>", "the report's language (ar, en)", choice("--lang", ["ar", "en"] as const), "en")
    .option("--no-report", "leave the report out")
    .option("--organization <name>", "Source-Organization in bag-info.txt")
    .action(async (id: string, version: string, o: { recipient: string; clearance: Clearance; purpose: string; out: string; lang: "ar" | "en"; report: boolean; organization?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const v = positiveIntOption("version")(version);
      await withArchive(opts, async (a) => {
        const bar = progressBar("package");
        try {
          const r = await buildDossierPackage(a, operatorActor(), {
            dossierId: id,
            version: v,
            recipient: o.recipient,
            clearance: o.clearance,
            purpose: o.purpose,
            out: o.out,
            lang: o.lang,
            ...(o.report ? {} : { report: false }),
            ...(o.organization ? { sourceOrganization: o.organization } : {}),
            onProgress: (d, t, n) => bar.update(d, t, n),
          });
          bar.end();
          print(opts, r, `package ${r.id} of dossier ${id} v${v} (${o.clearance}): ${r.exhibits} photo(s), ${r.events} event proofs${r.report ? ", report" : ""}; handover logged as entry ${r.handoverSeq} — ${r.dir}`);
        } catch (e) {
          bar.end();
          throw e;
        }
      });
    });

  dossier
    .command("mark-region <sha256>")
    .description("mark a region of a photo to hide in redacted copies (a custody event)")
    .requiredOption("--x <px>", "left", Number)
    .requiredOption("--y <px>", "top", Number)
    .requiredOption("--w <px>", "width", Number)
    .requiredOption("--h <px>", "height", Number)
    .option("--label <label>", "face, tattoo, document, text, other", "face")
    .action(async (sha256: string, o: { x: number; y: number; w: number; h: number; label: MarkRegion["label"] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await markRegion(a, operatorActor(), { sha256, x: o.x, y: o.y, w: o.w, h: o.h, label: o.label });
        print(opts, r, `region ${r.id} marked on ${sha256.slice(0, 12)}… (${r.x},${r.y} ${r.w}×${r.h}, ${r.label})`);
      });
    });
}
