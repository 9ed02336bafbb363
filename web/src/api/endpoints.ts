import { CATALOGUE_ENDPOINTS } from "./endpoints/catalogue.ts";
import { REVIEW_ENDPOINTS } from "./endpoints/review.ts";
import { SEARCH_ENDPOINTS } from "./endpoints/search.ts";
import { STATISTICS_ENDPOINTS } from "./endpoints/statistics.ts";
import { FAMILIES_ENDPOINTS } from "./endpoints/families.ts";
import { DOSSIERS_ENDPOINTS } from "./endpoints/dossiers.ts";
import { EXHIBITIONS_ENDPOINTS } from "./endpoints/exhibitions.ts";
import { AUTHENTICITY_ENDPOINTS } from "./endpoints/authenticity.ts";

/**
 * Every server route the web app calls, in one table. A test (test/web/endpoints.test.ts) checks each entry
 * against the server's route table (GET /api/routes), so a renamed or removed route fails the build's tests,
 * not a user's click. Call them through `api` in client.ts; path parameters are typed from the URL.
 */
export const ENDPOINTS = {
  session: { method: "GET", url: "/api/session" },
  permissions: { method: "GET", url: "/api/permissions" },
  login: { method: "POST", url: "/api/auth/login" },
  secondFactor: { method: "POST", url: "/api/auth/second-factor" },
  changePassword: { method: "POST", url: "/api/auth/password" },
  enrol: { method: "POST", url: "/api/auth/enrol" },
  enrolConfirm: { method: "POST", url: "/api/auth/enrol/confirm" },
  logout: { method: "POST", url: "/api/auth/logout" },
  logoutEverywhere: { method: "POST", url: "/api/auth/logout-everywhere" },
  mySessions: { method: "GET", url: "/api/account/sessions" },
  endSession: { method: "DELETE", url: "/api/account/sessions/:id" },

  users: { method: "GET", url: "/api/users" },
  addUser: { method: "POST", url: "/api/users" },
  disableUser: { method: "POST", url: "/api/users/:id/disable" },
  enableUser: { method: "POST", url: "/api/users/:id/enable" },
  resetUser: { method: "POST", url: "/api/users/:id/reset" },
  peopleNames: { method: "POST", url: "/api/people/names" },
  work: { method: "GET", url: "/api/work" },

  gallery: { method: "GET", url: "/api/gallery" },
  original: { method: "GET", url: "/api/originals/:sha256" },
  originalMetadata: { method: "GET", url: "/api/originals/:sha256/metadata" },
  originalEvents: { method: "GET", url: "/api/originals/:sha256/events" },
  rendition: { method: "GET", url: "/api/originals/:sha256/renditions/:kind" },
  reveal: { method: "POST", url: "/api/originals/:sha256/reveal" },
  download: { method: "POST", url: "/api/originals/:sha256/download" },

  sources: { method: "GET", url: "/api/sources" },
  sourceSightings: { method: "GET", url: "/api/sources/:id/sightings" },
  createUpload: { method: "POST", url: "/api/uploads" },
  uploadFile: { method: "PUT", url: "/api/uploads/:id/files" },
  startIngest: { method: "POST", url: "/api/uploads/:id/ingest" },
  job: { method: "GET", url: "/api/jobs/:id" },

  logStatus: { method: "GET", url: "/api/log/status" },
  logCheckpoint: { method: "GET", url: "/log/checkpoint" },
  logKey: { method: "GET", url: "/log/key" },
  logProof: { method: "GET", url: "/log/proof/:sha256" },
  logWitnesses: { method: "GET", url: "/api/log/witnesses" },
  mirrors: { method: "GET", url: "/api/mirrors" },
  grantMirror: { method: "POST", url: "/api/mirrors" },
  revokeMirror: { method: "POST", url: "/api/mirrors/revoke" },
  witnessPolicy: { method: "GET", url: "/api/witness-policy" },
  addWitness: { method: "POST", url: "/api/witness-policy/witnesses" },
  removeWitness: { method: "POST", url: "/api/witness-policy/witnesses/remove" },
  setWitnessQuorum: { method: "POST", url: "/api/witness-policy/quorum" },

  // Each area keeps its own table (web/src/api/endpoints/<area>.ts) so areas built side by side do not collide.
  ...CATALOGUE_ENDPOINTS,
  ...REVIEW_ENDPOINTS,
  ...SEARCH_ENDPOINTS,
  ...STATISTICS_ENDPOINTS,
  ...FAMILIES_ENDPOINTS,
  ...DOSSIERS_ENDPOINTS,
  ...EXHIBITIONS_ENDPOINTS,
  ...AUTHENTICITY_ENDPOINTS,
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;

export type EndpointName = keyof typeof ENDPOINTS;

type ParamNames<U extends string> = U extends `${string}:${infer P}/${infer Rest}` ? P | ParamNames<`/${Rest}`> : U extends `${string}:${infer P}` ? P : never;

/** `{ sha256: string; kind: string }` for "/api/originals/:sha256/renditions/:kind". */
export type PathParams<N extends EndpointName> = { [K in ParamNames<(typeof ENDPOINTS)[N]["url"]>]: string };

/** The URL of an endpoint with its parameters filled in (each one encoded) and an optional query. */
export function pathOf<N extends EndpointName>(name: N, params: PathParams<N>, query?: Record<string, string | number | undefined>): string {
  const values = params as Record<string, string>;
  let url = ENDPOINTS[name].url.replace(/:([A-Za-z0-9_]+)/g, (_m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`missing path parameter ${key} for ${name}`);
    return encodeURIComponent(v);
  });
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  return url;
}
