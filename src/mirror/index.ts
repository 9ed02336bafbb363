/**
 * The mirror module: on the archive, grants for other custodians' mirrors and what a granted follower may fetch;
 * elsewhere, the follower itself (a folder that keeps a verified copy of the log and the encrypted blobs, cosigns
 * what it holds, and stops with fork evidence on any inconsistency) and the restore of an archive from it.
 * Other modules import this file only.
 */
export { grantMirror, revokeMirror, listMirrors, followerForToken, TOKEN_PREFIX, type MirrorGrantView } from "./grants.ts";
export { MIRROR_ROUTES } from "./routes.ts";
export { followOnce, initMirror, loadMirror, mirrorPaths, ForkDetected, type FollowReport, type MirrorConfig, type MirrorState } from "./follower.ts";
export { auditCopies, loadCopies, DEFAULT_EVERY_HOURS, type CopyAudit, type CopySpec } from "./copies.ts";
export { registerMirrorJobs, scheduleCopyAudits, JOB_AUDIT_COPY } from "./copy-jobs.ts";
export { restoreFromMirror, type RestoreReport } from "./restore.ts";
