import type { Role } from "../../src/core/actor.ts";

/**
 * The families module's rows of the HTTP authorization matrix (test/http/matrix.test.ts), written from the design:
 * caseworkers and administrators do casework (reports, candidates, duplicates, decisions, disclosures, flags);
 * a family member files and reads their own report, and uses the portal, where anything not theirs is "not
 * found"; no other role sees families' data. Records named here do not exist, so an allowed caller gets past
 * the gate to a 404 from the use case.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const CASEWORK: Role[] = ["admin", "family_caseworker"];
const WITH_FAMILY: Role[] = [...CASEWORK, "family_member"];

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}
/** Casework on a record that does not exist; a family member passes the gate (their own records) and is told "not found". */
function ownOr404(): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : WITH_FAMILY.includes(who as Role) ? 404 : 403);
}
/** The portal: family members only (404 for what is not theirs); caseworkers are sent to their own routes. */
function portal(ok: Outcome): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : who === "family_member" ? ok : 403);
}

export const FAMILIES_MATRIX: Record<string, Row> = {
  "GET /api/families/reports": { expect: only(WITH_FAMILY) },
  "POST /api/families/reports": { request: () => ({ body: { nameAr: "سامر يوسف الحلبي", sex: "male" } }), expect: only(WITH_FAMILY) },
  "POST /api/families/reports/import": {
    request: () => ({ body: { csv: "ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks\n", dryRun: true } }),
    expect: only(CASEWORK),
  },
  "GET /api/families/reports/:id": { request: () => ({ url: "/api/families/reports/rep_none" }), expect: ownOr404() },
  "PUT /api/families/reports/:id": { request: () => ({ url: "/api/families/reports/rep_none", body: { sex: "male" } }), expect: ownOr404() },
  "GET /api/families/reports/:id/candidates": { request: () => ({ url: "/api/families/reports/rep_none/candidates" }), expect: only(CASEWORK, 404) },
  "GET /api/families/reports/:id/case": { request: () => ({ url: "/api/families/reports/rep_none/case" }), expect: only(CASEWORK, 404) },
  "POST /api/families/reports/:id/members": { request: () => ({ url: "/api/families/reports/rep_none/members", body: { userId: "usr_none" } }), expect: only(CASEWORK, 404) },
  "POST /api/families/reports/:id/members/:userId/end": { request: () => ({ url: "/api/families/reports/rep_none/members/usr_none/end" }), expect: only(CASEWORK, 404) },
  "POST /api/families/reports/:id/consent": {
    request: () => ({ url: "/api/families/reports/rep_none/consent", body: { tier: "viewingPhotos", given: true, note: "matrix" } }),
    expect: only(CASEWORK, 404),
  },
  "POST /api/families/reports/:id/decisions": {
    request: () => ({ url: "/api/families/reports/rep_none/decisions", body: { bodyId: "bod_none", status: "probable", reason: "matrix" } }),
    expect: only(CASEWORK, 404),
  },
  "POST /api/families/reports/:id/disclosures": {
    request: () => ({ url: "/api/families/reports/rep_none/disclosures", body: { bodyId: "bod_none", stage: "text", text: "matrix", consentNote: "matrix", reason: "matrix" } }),
    expect: only(CASEWORK, 404),
  },
  "GET /api/families/disclosures/:id/image": { request: () => ({ url: "/api/families/disclosures/dis_none/image" }), expect: only(CASEWORK, 404) },
  "GET /api/families/bodies/:id/face-photos": { request: () => ({ url: "/api/families/bodies/bod_none/face-photos" }), expect: only(CASEWORK, 404) },
  "POST /api/families/reports/:id/face-previews": {
    request: () => ({ url: "/api/families/reports/rep_none/face-previews", body: { bodyId: "bod_none", photo: "0".repeat(64), region: { cx: 0.5, cy: 0.5, size: 0.7 } } }),
    expect: only(CASEWORK, 404),
  },
  "GET /api/families/face-previews/:id/image": { request: () => ({ url: "/api/families/face-previews/fpv_none/image" }), expect: only(CASEWORK, 404) },
  "POST /api/families/disclosures/:id/withdraw": { request: () => ({ url: "/api/families/disclosures/dis_none/withdraw", body: { reason: "sentInError" } }), expect: only(CASEWORK, 404) },
  "POST /api/families/requests/:id/approve": { request: () => ({ url: "/api/families/requests/vrq_none/approve", body: { reason: "matrix" } }), expect: only(CASEWORK, 404) },
  "POST /api/families/requests/:id/decline": { request: () => ({ url: "/api/families/requests/vrq_none/decline", body: { reason: "matrix" } }), expect: only(CASEWORK, 404) },
  "GET /api/families/flags": { expect: only(CASEWORK) },
  "GET /api/families/reports/:id/referrals": { request: () => ({ url: "/api/families/reports/rep_none/referrals" }), expect: only(CASEWORK, 404) },
  "POST /api/families/reports/:id/referrals": { request: () => ({ url: "/api/families/reports/rep_none/referrals", body: { lab: "matrix" } }), expect: only(CASEWORK, 404) },
  "PUT /api/families/referrals/:id": { request: () => ({ url: "/api/families/referrals/dnr_none", body: { status: "sent" } }), expect: only(CASEWORK, 404) },
  "POST /api/families/flags/:id/clear": { request: () => ({ url: "/api/families/flags/flg_none/clear", body: { note: "matrix" } }), expect: only(CASEWORK, 404) },
  "GET /api/families/duplicates": { expect: only(CASEWORK) },
  "POST /api/families/duplicates/scan": { expect: only(CASEWORK) },
  "POST /api/families/duplicates/:id/accept": { request: () => ({ url: "/api/families/duplicates/dup_none/accept", body: {} }), expect: only(CASEWORK, 404) },
  "POST /api/families/duplicates/:id/reject": { request: () => ({ url: "/api/families/duplicates/dup_none/reject", body: {} }), expect: only(CASEWORK, 404) },
  "GET /api/families/proposals": { expect: only(CASEWORK) },
  "POST /api/families/proposals/:id/accept": { request: () => ({ url: "/api/families/proposals/rpp_none/accept", body: {} }), expect: only(CASEWORK, 404) },
  "POST /api/families/proposals/:id/refuse": { request: () => ({ url: "/api/families/proposals/rpp_none/refuse", body: { reason: "matrix" } }), expect: only(CASEWORK, 404) },
  "POST /api/portal/reports/:id/proposals": { request: () => ({ url: "/api/portal/reports/rep_none/proposals", body: { fields: { branch: "215" } } }), expect: portal(404) },
  "GET /api/portal/reports": { expect: portal(200) },
  "GET /api/portal/vocabularies/:vocabulary": { request: () => ({ url: "/api/portal/vocabularies/mark_type" }), expect: portal(200) },
  "GET /api/portal/reports/:id": { request: () => ({ url: "/api/portal/reports/rep_none" }), expect: portal(404) },
  "POST /api/portal/reports/:id/consent": { request: () => ({ url: "/api/portal/reports/rep_none/consent", body: { tier: "viewingPhotos", given: false } }), expect: portal(404) },
  "POST /api/portal/reports/:id/requests": {
    request: () => ({ url: "/api/portal/reports/rep_none/requests", body: { matchId: "dis_none", unblurred: false } }),
    expect: portal(404),
  },
  "GET /api/portal/images/:id": { request: () => ({ url: "/api/portal/images/dis_none" }), expect: portal(404) },
};
