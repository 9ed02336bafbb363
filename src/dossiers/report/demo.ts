import type { Ctx } from "../../app/context.ts";
import type { Actor } from "../../core/actor.ts";
import type { DemoCardTruth } from "../../archive/index.ts";
import { createBodyInTx, Vocabularies } from "../../catalogue/index.ts";
import { preservedOriginals } from "../../archive/index.ts";

/**
 * Body records for an ingested demo card, straight from its truth.json (numbers typed, hospital, date, sex, age,
 * and an invented catalogued finding so the report's charts have something to count). For tests and the report
 * bench: a real archive is catalogued by people, through grouping proposals.
 */
const DEMO_FINDINGS = ["blunt_force", "emaciation", "burn_cigarette", "restraint_marks", "untreated_wound", "no_visible_injury"];

export async function catalogueDemoCard(ctx: Ctx, actor: Actor, truth: DemoCardTruth): Promise<{ bodyId: string; photos: string[] }[]> {
  const preserved = new Set(await preservedOriginals(ctx.db.db));
  const shaOf = new Map(truth.photos.filter((p) => p.kind === "original").map((p) => [p.path, p.sha256]));
  const vocab = await Vocabularies.load(ctx.db.db);
  const out: { bodyId: string; photos: string[] }[] = [];
  // Bodies in batches: one transaction per body would make a 500-body demo needlessly slow on PostgreSQL.
  for (let start = 0; start < truth.bodies.length; start += 50) {
    const batch = truth.bodies.slice(start, start + 50);
    const made = await ctx.db.transaction(async (tx) => {
      const rows: { bodyId: string; photos: string[] }[] = [];
      for (const [k, b] of batch.entries()) {
        const photos = [...new Set(b.photos.map((p) => shaOf.get(p)).filter((s): s is string => s !== undefined && preserved.has(s)))];
        const typed = (role: "detainee" | "branch" | "examiner", value: string) => ({ role, value, method: "typed" as const, enteredBy: actor.id });
        const row = await createBodyInTx(
          ctx,
          tx,
          actor,
          {
            photos: photos.map((sha256) => ({ sha256 })),
            numbers: [typed("detainee", b.detainee_no), typed("branch", b.branch_no), typed("examiner", b.examiner_no)],
            hospital: vocab.resolve("hospital", b.hospital) ? b.hospital : null,
            photoDate: b.photo_date,
            sex: b.sex,
            ageMin: b.age_min,
            ageMax: b.age_max,
            injuries: [DEMO_FINDINGS[(start + k) % DEMO_FINDINGS.length]!],
          },
          { action: "body.create", vocab },
        );
        rows.push({ bodyId: row.id, photos });
      }
      return rows;
    });
    out.push(...made);
  }
  return out;
}
