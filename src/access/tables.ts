import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/**
 * The access module's tables (migration 0002-access) as Kysely sees them. They are declared here, next to the
 * code that owns them, and joined onto the shared schema with `withTables`, so the module needs no edit to
 * src/db/schema.ts. Secrets are never stored as given: passwords as argon2id, tokens and codes as SHA-256,
 * second-factor secrets and sealed identities encrypted (AES-256-GCM).
 */
export interface UsersTable {
  id: string;
  email: string; // lowercased
  role: string;
  password_hash: string;
  must_change_password: number; // 0 | 1
  totp_secret: Buffer | null; // nonce ‖ ciphertext ‖ tag under the accounts key, AAD = user id
  totp_enabled_at: string | null;
  totp_last_step: number | null; // the last accepted TOTP time step: a code is never accepted twice
  disabled_at: string | null;
  created_at: string;
  created_by: string;
  password_changed_at: string | null;
  last_sign_in_at: string | null;
}

export interface SessionsTable {
  id: string; // ses_…: a handle for listing and revoking, never the credential
  token_hash: string; // SHA-256 of the cookie value, hex
  user_id: string;
  stage: string; // see SessionStage
  created_at: string;
  last_seen_at: string;
  expires_at: string; // absolute expiry
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: string | null;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  scopes: string; // JSON array of actions
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface AuthThrottleTable {
  key: string; // "acct:<hmac of email>" | "ip:<hmac of address>" | "totp:<user id>"
  failures: number;
  window_started_at: string;
  locked_until: string | null;
  updated_at: string;
}

export interface SealedIdentitiesTable {
  source_id: string;
  ciphertext: Buffer; // ciphertext ‖ tag
  nonce: Buffer;
  key_id: string; // which sealed key opens it (first 8 bytes of its SHA-256, hex)
  sealed_at: string;
  sealed_by: string;
}

export interface AccessAuditTable {
  id: string;
  at: string;
  actor: string;
  action: string;
  subject: string | null;
  detail: string; // JSON; never a secret, an email address or an identity
}

export type AccessTables = {
  users: UsersTable;
  sessions: SessionsTable;
  recovery_codes: RecoveryCodesTable;
  api_tokens: ApiTokensTable;
  auth_throttle: AuthThrottleTable;
  sealed_identities: SealedIdentitiesTable;
  access_audit: AccessAuditTable;
};

export type AccessDb = Kysely<Database & AccessTables>;

/** The shared schema plus this module's tables, on a connection or inside a transaction. */
export function adb(tx: Tx): AccessDb {
  return tx.withTables<AccessTables>();
}
