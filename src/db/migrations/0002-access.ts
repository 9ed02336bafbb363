import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/** Access: accounts, sessions, second factor, API tokens, sign-in throttling, sealed source identities. */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  const bytes = m.bytesType;
  const bigint = "bigint" as const;

  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("must_change_password", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("totp_secret", bytes)
    .addColumn("totp_enabled_at", "text")
    .addColumn("totp_last_step", bigint)
    .addColumn("disabled_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("password_changed_at", "text")
    .addColumn("last_sign_in_at", "text")
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("stage", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

  await db.schema
    .createTable("recovery_codes")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .addPrimaryKeyConstraint("recovery_codes_pk", ["user_id", "code_hash"])
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_tokens_user").on("api_tokens").column("user_id").execute();

  await db.schema
    .createTable("auth_throttle")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("window_started_at", "text", (c) => c.notNull())
    .addColumn("locked_until", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("sealed_identities")
    .addColumn("source_id", "text", (c) => c.primaryKey().references("sources.id"))
    .addColumn("ciphertext", bytes, (c) => c.notNull())
    .addColumn("nonce", bytes, (c) => c.notNull())
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("sealed_at", "text", (c) => c.notNull())
    .addColumn("sealed_by", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("access_audit")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("subject", "text")
    .addColumn("detail", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("access_audit_subject").on("access_audit").column("subject").execute();
}
