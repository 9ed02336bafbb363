/** The shapes the server answers with (mirroring the server's views; the e2e tests exercise every one). */
export type Role =
  | "admin"
  | "archivist"
  | "investigator"
  | "forensic_reviewer"
  | "family_caseworker"
  | "prosecutor"
  | "curator"
  | "family_member"
  | "public";

export type Stage = "password_change" | "totp_enrol" | "totp" | "full";

export interface SessionInfo {
  signedIn: boolean;
  stage: Stage | null;
  next?: string;
  user: { id: string; email?: string; role: Role; secondFactor?: boolean } | null;
  expiresAt?: string;
  csrfToken?: string;
}

export interface SignInStep {
  stage: Stage;
  next: string;
  expiresAt: string;
  csrfToken: string;
  user: { id: string; role: Role };
  recoveryCodesLeft?: number;
  recoveryCodes?: string[];
}

export interface Permissions {
  role: Role;
  actions: string[];
  roles: Role[];
}

export interface Enrolment {
  secret: string;
  uri: string;
}

export interface UserView {
  id: string;
  email: string;
  role: Role;
  disabled: boolean;
  secondFactor: boolean;
  mustChangePassword: boolean;
  createdAt: string;
  lastSignInAt: string | null;
}

export interface SessionView {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  current: boolean;
}

export interface GalleryItem {
  sha256: string;
  status: string;
  format: string;
  mediaKind: string;
  captureTime: string | null;
  width: number | null;
  height: number | null;
  blurred: boolean;
}

export interface GalleryPage {
  total: number;
  offset: number;
  items: GalleryItem[];
}

export interface OriginalDetail {
  sha256: string;
  size: number;
  format: string;
  mediaKind: string;
  status: string;
  quarantineReason: string | null;
  width: number | null;
  height: number | null;
  captureTime: string | null;
  camera: { make: string | null; model: string | null; serial?: string | null };
  phash: string | null;
  firstSeenAt: string;
  renditions: { kind: string; sha256: string; width: number; height: number }[];
  sightings: { source: string; path?: string; outcome: string }[];
}

export interface MetadataView {
  sha256: string;
  parsed: Record<string, unknown>;
  problems: string[];
  software: string | null;
  orientation: number | null;
  hidden: boolean;
}

export interface HistoryEvent {
  seq: number;
  id: string;
  type: string;
  at: string;
  actor: { kind: string; id: string; role: string };
  outcome: string;
  detail: Record<string, unknown>;
}

export interface SourceRow {
  id: string;
  label: string;
  kind: string;
  medium_sha256: string | null;
  status: string;
  started_at: string;
  finished_at: string | null;
  files: number;
  ingested: number;
  duplicates: number;
  quarantined: number;
  bytes: number;
}

export interface Sighting {
  entry: number;
  path?: string;
  size: number;
  outcome: string;
  reason: string | null;
  sha256: string | null;
  seenAt: string;
}

export interface SightingsPage {
  source: string;
  total: number;
  offset: number;
  items: Sighting[];
}

export interface UploadView {
  id: string;
  kind: "folder" | "container";
  label: string | null;
  createdAt: string;
  job: string | null;
}

export interface IngestResult {
  source: string;
  files: number;
  ingested: number;
  duplicates: number;
  quarantined: number;
  bytes: number;
  resumed: boolean;
}

export interface Job {
  id: string;
  kind: string;
  status: "queued" | "running" | "done" | "failed";
  attempts: number;
  maxAttempts: number;
  progress: { done: number; total: number; note: string | null };
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface LogStatus {
  origin: string;
  verifierKey: string;
  events: number;
  checkpoint: { size: number; rootHash: string; createdAt: string; note: string; timestamped: boolean; authority: string | null } | null;
  lastVerify: { at: string; outcome: string; checked: number | null; failed: number | null; seq: number } | null;
}

export interface ProofAnswer {
  index: number;
  proof: string;
  leaf: string;
}

/** GET /api/work: what waits for the signed-in person (src/work). */
export type WorkKind = "proposals" | "numbersToCheck" | "reviewsAssigned" | "disagreements" | "flags" | "duplicates" | "dossiers" | "myReports";
export interface WorkView {
  items: { kind: WorkKind; count: number; href: string; records?: { ref: string; href: string }[] }[];
}

/** POST /api/people/names: who is behind an account id (src/access/people.ts). */
export type PersonName =
  | { id: string; kind: "account"; email: string | null; role: Role }
  | { id: string; kind: "operator"; login: string }
  | { id: string; kind: "system" }
  | { id: string; kind: "unknown" };
