import { ENDPOINTS, pathOf, type EndpointName, type PathParams } from "./endpoints.ts";
import type { RouteContracts } from "./contracts.ts";
import type {
  Enrolment,
  GalleryPage,
  HistoryEvent,
  Job,
  LogStatus,
  LogWitnesses,
  MirrorGrant,
  MirrorGrantIssued,
  MetadataView,
  OriginalDetail,
  Permissions,
  ProofAnswer,
  SessionInfo,
  SessionView,
  SightingsPage,
  SignInStep,
  SourceRow,
  UploadView,
  UserView,
  PersonName,
  WorkView,
} from "./types.ts";

/**
 * The typed client over ENDPOINTS. Cookies carry the session (HttpOnly, SameSite=Strict); every
 * state-changing request also carries the session's CSRF token in X-CSRF-Token, which the server hands out
 * with the session (GET /api/session) and with every sign-in step. A 401 tells listeners the session ended.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** The server's message key and parameters (`server.<key>` in the reader's language), when it sent one. */
    readonly key?: string,
    readonly params?: Readonly<Record<string, string | number>>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

type ErrorBody = { error?: string; message?: string; field?: string; key?: string; params?: Record<string, string | number> };

function apiError(status: number, b: ErrorBody, fallback: string): ApiError {
  return new ApiError(status, b.error ?? "error", b.message ?? fallback, b.field, b.key, b.params);
}

let csrfToken: string | null = null;
const signedOutListeners = new Set<() => void>();

export function setCsrfToken(token: string | null | undefined): void {
  csrfToken = token ?? null;
}

/** Called when a request answers 401 (the session expired or was ended elsewhere). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** "high" for what a person waits for while many images load (they share six connections). */
  priority?: "high" | "low" | "auto";
}

function headersFor(method: string, json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: "application/json" };
  if (json) h["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) h["x-csrf-token"] = csrfToken;
  return h;
}

async function failure(res: Response): Promise<ApiError> {
  let body: ErrorBody = {};
  try {
    body = (await res.json()) as ErrorBody;
  } catch {
    // Not JSON (a proxy's error page): keep the status line.
  }
  if (res.status === 401) for (const l of signedOutListeners) l();
  return apiError(res.status, body, res.statusText || `HTTP ${res.status}`);
}

/** Exported for the areas' own clients (web/src/api/endpoints/<area>.ts names their routes). */
export async function send<N extends EndpointName>(name: N, params: PathParams<N>, opts: CallOptions = {}): Promise<Response> {
  const { method } = ENDPOINTS[name];
  // Fastify refuses an empty JSON body, so a POST without one sends "{}".
  const body = opts.body !== undefined ? JSON.stringify(opts.body) : method === "POST" ? "{}" : undefined;
  const res = await fetch(pathOf(name, params, opts.query), {
    method,
    headers: headersFor(method, body !== undefined),
    credentials: "same-origin",
    ...(body !== undefined ? { body } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.priority ? { priority: opts.priority } : {}),
  });
  if (!res.ok) throw await failure(res);
  return res;
}

/** What each JSON endpoint answers. */
interface Responses {
  session: SessionInfo;
  permissions: Permissions;
  login: SignInStep;
  secondFactor: SignInStep;
  changePassword: SignInStep;
  enrol: Enrolment;
  enrolConfirm: SignInStep & { recoveryCodes: string[] };
  logout: { signedIn: false };
  logoutEverywhere: unknown;
  mySessions: SessionView[];
  endSession: { ended: boolean };
  users: UserView[];
  addUser: { user: UserView; oneTimePassword: string };
  peopleNames: { people: PersonName[] };
  work: WorkView;
  disableUser: UserView;
  enableUser: UserView;
  resetUser: { user: UserView; oneTimePassword: string };
  gallery: GalleryPage;
  original: OriginalDetail;
  originalMetadata: MetadataView;
  originalEvents: { sha256: string; events: HistoryEvent[] };
  sources: SourceRow[];
  sourceSightings: SightingsPage;
  createUpload: UploadView;
  startIngest: { job: string };
  job: Job;
  logStatus: LogStatus;
  logProof: ProofAnswer;
  logWitnesses: LogWitnesses;
  mirrors: MirrorGrant[];
  grantMirror: MirrorGrantIssued;
  revokeMirror: MirrorGrant;
}

async function json<N extends keyof Responses>(name: N, params: PathParams<N>, opts?: CallOptions): Promise<Responses[N]> {
  return (await (await send(name, params, opts)).json()) as Responses[N];
}

async function text<N extends EndpointName>(name: N, params: PathParams<N>): Promise<string> {
  return (await send(name, params)).text();
}

const none = {} as never;

/** The URL of a GET endpoint, for <img src> and links. */
export function urlOf<N extends EndpointName>(name: N, params: PathParams<N>, query?: Record<string, string | number | undefined>): string {
  return pathOf(name, params, query);
}

export interface RevealedBytes {
  blob: Blob;
  event: string | null;
}

export const api = {
  session: () => json("session", none),
  permissions: () => json("permissions", none),
  login: (email: string, password: string) => json("login", none, { body: { email, password } }),
  secondFactor: (input: { code: string } | { recoveryCode: string }) => json("secondFactor", none, { body: input }),
  changePassword: (current: string, next: string) => json("changePassword", none, { body: { current, next } }),
  enrol: () => json("enrol", none),
  enrolConfirm: (code: string) => json("enrolConfirm", none, { body: { code } }),
  logout: () => json("logout", none),
  logoutEverywhere: () => json("logoutEverywhere", none),
  mySessions: () => json("mySessions", none),
  endSession: (id: string) => json("endSession", { id }),

  users: () => json("users", none),
  addUser: (email: string, role: string) => json("addUser", none, { body: { email, role } }),
  peopleNames: (ids: string[]) => json("peopleNames", none, { body: { ids } }),
  work: () => json("work", none),
  disableUser: (id: string) => json("disableUser", { id }),
  enableUser: (id: string) => json("enableUser", { id }),
  resetUser: (id: string, secondFactor: boolean) =>
    json("resetUser", { id }, { body: { secondFactor } }),

  /** A page of the gallery; `filters` as in the gallery's URL (body, numbers, source, intakeFrom, intakeTo). */
  gallery: (offset: number, limit: number, filters: Record<string, string> = {}, signal?: AbortSignal) =>
    json("gallery", none, { query: { ...filters, offset, limit }, priority: "high", ...(signal ? { signal } : {}) }),
  original: (sha256: string) => json("original", { sha256 }),
  originalMetadata: (sha256: string) => json("originalMetadata", { sha256 }),
  originalEvents: (sha256: string) => json("originalEvents", { sha256 }),
  blurredUrl: (sha256: string) => urlOf("rendition", { sha256, kind: "blurred" }),
  /** The reveal: the server records it (with the reason) before it sends a byte. */
  reveal: async (sha256: string, kind: "thumbnail" | "preview", reason: string): Promise<RevealedBytes> => {
    const res = await send("reveal", { sha256 }, { body: { kind, reason } });
    return { blob: await res.blob(), event: res.headers.get("x-dalil-event") };
  },
  /** The original's bytes as a file: logged as a download (a file leaving the archive), not as a reveal. */
  download: async (sha256: string, reason: string): Promise<RevealedBytes> => {
    const res = await send("download", { sha256 }, { body: { reason } });
    return { blob: await res.blob(), event: res.headers.get("x-dalil-event") };
  },

  sources: () => json("sources", none),
  sourceSightings: (id: string, outcome: "ingested" | "duplicate" | "quarantined" | undefined, offset = 0, limit = 100) =>
    json("sourceSightings", { id }, { query: { outcome, offset, limit } }),
  createUpload: (kind: "folder" | "container", label?: string) =>
    json("createUpload", none, { body: label ? { kind, label } : { kind } }),
  startIngest: (id: string, label?: string) => json("startIngest", { id }, { body: label ? { label } : {} }),
  job: (id: string) => json("job", { id }),

  logStatus: () => json("logStatus", none),
  logCheckpoint: () => text("logCheckpoint", none),
  logKey: () => text("logKey", none),
  logProof: (sha256: string) => json("logProof", { sha256 }),
  logWitnesses: () => json("logWitnesses", none),
  mirrors: () => json("mirrors", none),
  grantMirror: (name: string) => json("grantMirror", none, { body: { name } }),
  revokeMirror: (name: string) => json("revokeMirror", none, { body: { name } }),
  witnessPolicy: () => typedCall("witnessPolicy", none),
  addWitness: (body: BodyOf<"addWitness">) => typedCall("addWitness", none, { body }),
  removeWitness: (name: string) => typedCall("removeWitness", none, { body: { name } }),
  setWitnessQuorum: (body: BodyOf<"setWitnessQuorum">) => typedCall("setWitnessQuorum", none, { body }),
};

/**
 * One file of an upload, with progress. XMLHttpRequest rather than fetch: only it reports upload progress.
 * The body is the raw bytes; the path is the file's place in the card's folder.
 */
export function uploadFile(
  uploadId: string,
  path: string,
  file: Blob & { lastModified?: number },
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<{ path: string; size: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const query: Record<string, string | number | undefined> = { path };
    if (file.lastModified) query.modified = file.lastModified;
    xhr.open(ENDPOINTS.uploadFile.method, pathOf("uploadFile", { id: uploadId }, query));
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.setRequestHeader("accept", "application/json");
    if (csrfToken) xhr.setRequestHeader("x-csrf-token", csrfToken);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: ErrorBody & { path?: string; size?: number; sha256?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        body = {};
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve({ path: body.path ?? path, size: body.size ?? 0, sha256: body.sha256 ?? "" });
      } else {
        if (xhr.status === 401) for (const l of signedOutListeners) l();
        reject(apiError(xhr.status, body, `HTTP ${xhr.status}`));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, "network", "The connection to the archive was lost."));
    xhr.onabort = () => reject(new ApiError(0, "aborted", "The upload was stopped."));
    signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(file);
  });
}

/**
 * A JSON call for an area's own client (web/src/screens/<area>/api.ts). The answer's type and the body's are the
 * server's contracts of that route, read from the table built from the server's route tables
 * (web/src/api/contracts.ts, decision 0021): naming the endpoint is naming its contract, so no call can expect
 * another route's answer or send another route's body. test/http/contracts.test.ts checks that each GET answers
 * what its contract says.
 */
export function typedCall<N extends EndpointName>(name: N, params: PathParams<N>, opts?: Omit<CallOptions, "body"> & { body?: BodyOf<N> }): Promise<AnswerOf<N>> {
  return send(name, params, opts).then((res) => res.json() as Promise<AnswerOf<N>>);
}

/** "METHOD /path" of an endpoint: its key in the route contracts. */
type RouteKey<N extends EndpointName> = `${(typeof ENDPOINTS)[N]["method"]} ${(typeof ENDPOINTS)[N]["url"]}`;
/** What the route of an endpoint answers (its contract's type). */
export type AnswerOf<N extends EndpointName> = RouteContracts[RouteKey<N> & keyof RouteContracts]["answer"];
/** The body the route of an endpoint takes (its use case's input, without what the path gives). */
export type BodyOf<N extends EndpointName> = RouteContracts[RouteKey<N> & keyof RouteContracts]["body"];

/** Endpoints of the web app that are no route of the server: a compile error here names them. */
type NotARoute = { [N in EndpointName]: RouteKey<N> extends keyof RouteContracts ? never : N }[EndpointName];
export const everyEndpointIsARoute: [NotARoute] extends [never] ? true : { notARoute: NotARoute } = true;
