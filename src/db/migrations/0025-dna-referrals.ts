import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * DNA and ante-mortem referrals (issue 19 item 4, decision 0033), owned by the families module.
 *
 * `family_dna_referrals`: one row per version of a referral, never updated nor deleted: a referral (`referral`,
 * "dnr_…") is its rows in order, the latest the current one, the earlier its history. A referral is for a report
 * (made only with the family's dnaReferral consent) and may name a body it concerns; it carries who gave the
 * sample (their relationship to the missing person) and when, the laboratory and its reference, the status
 * (requested, sample_taken, sent, result) and, with status result, the result (match, exclusion, inconclusive)
 * and its date. The laboratory's reference stays in this table: the custody log names the referral by its id.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("family_dna_referrals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("referral", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("report_id", "text", (c) => c.notNull())
    .addColumn("body_id", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("sample_from", "text")
    .addColumn("sample_taken_on", "text")
    .addColumn("lab", "text")
    .addColumn("lab_ref", "text")
    .addColumn("result", "text")
    .addColumn("result_on", "text")
    .addColumn("note", "text", (c) => c.notNull())
    .addColumn("recorded_by", "text", (c) => c.notNull())
    .addColumn("recorded_at", "text", (c) => c.notNull())
    .addUniqueConstraint("family_dna_referrals_version", ["referral", "version"])
    .execute();
  await db.schema.createIndex("family_dna_referrals_report").on("family_dna_referrals").columns(["report_id", "referral"]).execute();
}
