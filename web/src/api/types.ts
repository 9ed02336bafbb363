/**
 * The shapes the server answers with: the server's own contracts (zod schemas in src/<module>/contracts.ts),
 * imported as types only, so nothing of the server's code reaches the bundle and a change on the server is a
 * type error here rather than a surprise on screen.
 */
import type * as core from "../../../src/core/contracts.ts";
import type * as access from "../../../src/access/contracts.ts";
import type * as archive from "../../../src/archive/contracts.ts";
import type * as http from "../../../src/http/contracts.ts";
import type * as ledger from "../../../src/ledger/contracts.ts";
import type * as mirror from "../../../src/mirror/contracts.ts";
import type * as work from "../../../src/work/contracts.ts";

export type Role = core.Role;
/** An action the policy knows (`can(action)` takes only these). */
export type Action = access.Action;
export type Stage = access.SessionStage;
export type SessionInfo = http.GetSessionAnswer;
export type SignInStep = http.PostAuthLoginAnswer & { recoveryCodes?: string[] };
export type Permissions = http.GetPermissionsAnswer;
export type Enrolment = http.PostAuthEnrolAnswer;
export type UserView = access.UserView;
export type SessionView = access.SessionView;
export type GalleryItem = archive.GalleryItem;
export type GalleryPage = archive.GalleryPage;
export type OriginalDetail = archive.GetOriginalsBySha256Answer;
export type MetadataView = archive.MetadataView;
export type HistoryEvent = archive.HistoryEvent;
export type SourceRow = archive.GetSourcesAnswer[number];
export type Sighting = archive.SightingView;
export type SightingsPage = archive.GetSourcesByIdSightingsAnswer;
export type UploadView = archive.UploadView;
export type Job = core.JobView;
export type LogStatus = archive.LogStatus;
export type ProofAnswer = ledger.GetLogProofBySha256Answer;
/** GET /api/log/witnesses (src/ledger) and GET /api/mirrors (src/mirror, admins). */
export type LogWitnesses = ledger.LogWitnesses;
export type MirrorGrant = mirror.MirrorGrantView;
/** POST /api/mirrors: the grant with its token, shown this once. */
export type MirrorGrantIssued = mirror.MirrorGrantIssued;
/** GET /api/work: what waits for the signed-in person (src/work). */
export type WorkKind = work.WorkKind;
export type WorkView = work.GetWorkAnswer;
/** POST /api/people/names: who is behind an account id (src/access/people.ts). */
export type PersonName = access.PersonName;
export type PeopleNames = access.PostPeopleNamesAnswer;

/** What an intake job leaves as its result (a job's `result` is not typed by the job list). */
export interface IngestResult {
  source: string;
  files: number;
  ingested: number;
  duplicates: number;
  quarantined: number;
  bytes: number;
  resumed: boolean;
}
