import type { Ctx } from "../../app/context.ts";
import type { Actor } from "../../core/actor.ts";
import { Forbidden, Invalid, NotFound } from "../../core/errors.ts";
import { say } from "../../core/messages.ts";
import { bodiesOfPhoto, getBody, getEntity, linksOf, Vocabularies, type BodyDetail, type EntityDetail, type LinkView } from "../../catalogue/index.ts";
import { getReview, reviewsOfBody, type ReviewView } from "../../review/index.ts";
import type { NumberMethod, NumberRole } from "../../catalogue/index.ts";
import { words } from "./i18n.ts";
import { PeopleNames } from "./people.ts";

/**
 * What the report says about one exhibit, read through the modules' own use cases (so the policy decides what the
 * preparer may see) and kept as text only: images are made later, one at a time, straight to files.
 *
 * An exhibit is one of the dossier's kinds: a body (with its photos, findings, reviews and links), a photograph,
 * a signed review, or a catalogue entity (facility, unit, person of interest). A body exhibit may leave out `kind`.
 */
export interface BodyExhibitInput {
  kind?: "body";
  number: string;
  bodyId: string;
  /** sha256 of the photos to show; default all of the body's photos. */
  photos?: string[];
  reasoning?: string[];
  evidence?: EvidenceInput[];
}

export interface PhotoExhibitInput {
  kind: "photo";
  number: string;
  sha256: string;
  reasoning?: string[];
  evidence?: EvidenceInput[];
}

export interface ReviewExhibitInput {
  kind: "review";
  number: string;
  reviewId: string;
  reasoning?: string[];
  evidence?: EvidenceInput[];
}

export type EntityExhibitKind = "facility" | "unit" | "person";
export const ENTITY_EXHIBIT_KINDS: readonly EntityExhibitKind[] = ["facility", "unit", "person"];

export interface EntityExhibitInput {
  kind: EntityExhibitKind;
  number: string;
  entityId: string;
  reasoning?: string[];
  evidence?: EvidenceInput[];
}

export type ExhibitInput = BodyExhibitInput | PhotoExhibitInput | ReviewExhibitInput | EntityExhibitInput;
export type ExhibitKindName = "body" | "photo" | "review" | EntityExhibitKind;

/** The evidence the exhibit's author cited for tying it to the case (as the dossier holds it). */
export interface EvidenceInput {
  kind: string;
  ref: string;
  note?: string;
}

/** A withdrawn exhibit: no section, one row of the annex, so its number stays findable. */
export interface WithdrawnExhibit {
  number: string;
  kind: ExhibitKindName;
  at: string;
  reason: string;
}

export interface PhotoFacts {
  sha256: string;
  role: string;
  /** Log index (seq) of the event that read it from its medium, if any; then every other event about it. */
  ingestedAt: number | null;
  events: number[];
}

export interface LinkFacts {
  type: string;
  other: string;
  reasoning: string;
  confidence: string;
  evidence: string[];
}

interface Common {
  number: string;
  reasoning: string[];
  evidence: string[];
  /** The images of the section, in order (a body's chosen photos, a photo exhibit's one). */
  photos: PhotoFacts[];
}

/** A body's current number of one role, and whether a second person checked it (as the records show). */
export interface NumberFacts {
  role: NumberRole;
  value: string;
  method: NumberMethod;
  /** The checker, named (address and role), and the day; null when no second person checked it. */
  check: { by: string; on: string } | null;
}

export interface BodyFacts extends Common {
  kind: "body";
  body: BodyDetail;
  /** The numbers printed for the body, one per role it has. */
  numbers: NumberFacts[];
  links: LinkFacts[];
  /** Latest version of each review chain the preparer may read. */
  reviews: ReviewView[];
  hiddenReviews: number;
  reviewsReadable: boolean;
}

export interface PhotoExhibitFacts extends Common {
  kind: "photo";
  /** The body record the photo is grouped into, when there is one the preparer may read. */
  body: { ref: string; photoNo: number } | null;
}

export interface ReviewFacts extends Common {
  kind: "review";
  reviewId: string;
  /** The review, or null when the preparer may not read it (`hidden` says why). */
  review: ReviewView | null;
  hidden: "policy" | "blind" | null;
  /** A later version that corrects this one, when the preparer may read it. */
  supersededBy: ReviewView | null;
  /** The reviewer, named (address and role); null when the review is not shown. */
  reviewer: string | null;
}

export interface EntityFacts extends Common {
  kind: EntityExhibitKind;
  entity: EntityDetail;
  links: LinkFacts[];
}

export type ExhibitFacts = BodyFacts | PhotoExhibitFacts | ReviewFacts | EntityFacts;

const HEX64 = /^[0-9a-f]{64}$/;

export function checkExhibits(exhibits: ExhibitInput[], withdrawn: WithdrawnExhibit[] = []): void {
  if (exhibits.length === 0) throw new Invalid(say("report.noExhibits"), "exhibits");
  const seen = new Set<string>();
  for (const e of [...exhibits, ...withdrawn]) {
    if (!e.number.trim()) throw new Invalid(say("report.exhibitNumber"), "exhibits");
    if (seen.has(e.number)) throw new Invalid(say("report.numberTwice", { number: e.number }), "exhibits");
    seen.add(e.number);
  }
  for (const e of exhibits) {
    const kind = e.kind ?? "body";
    if (kind === "body") for (const p of (e as BodyExhibitInput).photos ?? []) if (!HEX64.test(p)) throw new Invalid(say("report.notSha256", { number: e.number, sha256: p }), "exhibits");
    if (kind === "photo" && !HEX64.test((e as PhotoExhibitInput).sha256)) throw new Invalid(say("report.notSha256", { number: e.number, sha256: (e as PhotoExhibitInput).sha256 }), "exhibits");
    if (kind !== "body" && kind !== "photo" && kind !== "review" && !ENTITY_EXHIBIT_KINDS.includes(kind)) {
      throw new Invalid(say("report.exhibitKind", { number: e.number, kind: String(kind) }), "exhibits");
    }
  }
}

export class Gatherer {
  private readonly entityNames = new Map<string, string>();
  private readonly vocab: Vocabularies;
  readonly people: PeopleNames;

  constructor(
    private readonly ctx: Ctx,
    private readonly actor: Actor,
    vocab: Vocabularies,
    private readonly lang: "ar" | "en",
  ) {
    this.vocab = vocab;
    this.people = new PeopleNames(ctx, words(lang));
  }

  async exhibit(input: ExhibitInput): Promise<ExhibitFacts> {
    switch (input.kind) {
      case "photo":
        return this.photoExhibit(input);
      case "review":
        return this.reviewExhibit(input);
      case "facility":
      case "unit":
      case "person":
        return this.entityExhibit(input);
      default:
        return this.bodyExhibit(input);
    }
  }

  private common(input: ExhibitInput, photos: PhotoFacts[]): Common {
    return { number: input.number, reasoning: input.reasoning ?? [], evidence: (input.evidence ?? []).map(evidenceText), photos };
  }

  private async photoFacts(sha: string, role: string): Promise<PhotoFacts> {
    const events = await this.ctx.log.eventsFor(sha);
    const ingestion = events.find((e) => e.event.type === "ingestion");
    return { sha256: sha, role, ingestedAt: ingestion?.seq ?? null, events: events.map((e) => e.seq) };
  }

  private async bodyExhibit(input: BodyExhibitInput): Promise<BodyFacts> {
    const { ctx, actor } = this;
    const body = await getBody(ctx, actor, input.bodyId);
    const own = new Map(body.photos.map((p) => [p.sha256, p]));
    const chosen = input.photos ?? body.photos.map((p) => p.sha256);
    for (const sha of chosen) {
      if (!own.has(sha)) throw new Invalid(say("report.photoNotOfBody", { number: input.number, sha256: sha.slice(0, 12), ref: body.ref }), "exhibits");
    }
    const photos: PhotoFacts[] = [];
    for (const sha of chosen) photos.push(await this.photoFacts(sha, own.get(sha)!.role));
    const reviewsReadable = ctx.policy.allows(actor, "review.read");
    let reviews: ReviewView[] = [];
    let hiddenReviews = 0;
    if (reviewsReadable) {
      const r = await reviewsOfBody(ctx, actor, body.id);
      const superseded = new Set(r.reviews.map((x) => x.content.supersedes).filter((x): x is string => x !== null));
      reviews = r.reviews.filter((x) => !superseded.has(x.id));
      hiddenReviews = r.hidden;
    }
    const links = await Promise.all((await linksOf(ctx, actor, { recordId: body.id })).map((l) => this.link(l, body.id)));
    return { kind: "body", ...this.common(input, photos), body, numbers: await this.numbers(body), links, reviews, hiddenReviews, reviewsReadable };
  }

  /** The current number of each role (the latest one not retired, as the body record shows it). */
  private async numbers(body: BodyDetail): Promise<NumberFacts[]> {
    const out: NumberFacts[] = [];
    for (const role of ["detainee", "branch", "examiner"] as const) {
      const current = body.numbers.filter((n) => n.role === role && !n.retired).at(-1);
      if (!current) continue;
      const check = current.checkedBy ? { by: await this.people.label(current.checkedBy), on: (current.checkedAt ?? "").slice(0, 10) } : null;
      out.push({ role, value: current.value, method: current.method, check });
    }
    return out;
  }

  private async photoExhibit(input: PhotoExhibitInput): Promise<PhotoExhibitFacts> {
    const { ctx, actor } = this;
    // The catalogue names the bodies of this photo; each is read through getBody, so a body above the
    // preparer's clearance is left out, not leaked.
    const rows = (await bodiesOfPhoto(ctx.db.db, input.sha256)).map((body_id) => ({ body_id }));
    let body: PhotoExhibitFacts["body"] = null;
    let role = "";
    for (const r of rows) {
      const b = await getBody(ctx, actor, r.body_id).catch((e: unknown) => {
        if (e instanceof Forbidden || e instanceof NotFound) return null;
        throw e;
      });
      const k = b ? b.photos.findIndex((p) => p.sha256 === input.sha256) : -1;
      if (b && k >= 0) {
        body = { ref: b.ref, photoNo: k + 1 };
        role = b.photos[k]!.role;
        break;
      }
    }
    return { kind: "photo", ...this.common(input, [await this.photoFacts(input.sha256, role)]), body };
  }

  private async reviewExhibit(input: ReviewExhibitInput): Promise<ReviewFacts> {
    const { ctx, actor } = this;
    const base = { kind: "review" as const, ...this.common(input, []), reviewId: input.reviewId, supersededBy: null, reviewer: null };
    if (!ctx.policy.allows(actor, "review.read")) return { ...base, review: null, hidden: "policy" };
    let review: ReviewView;
    try {
      review = await getReview(ctx, actor, input.reviewId);
    } catch (e) {
      if (e instanceof Forbidden) return { ...base, review: null, hidden: "blind" };
      throw e;
    }
    // A correction is a later version of the same chain: the court must see that this one was superseded.
    const chain = await reviewsOfBody(ctx, actor, review.content.body);
    const supersededBy = chain.reviews.find((r) => r.content.supersedes === review.id) ?? null;
    return { ...base, review, hidden: null, supersededBy, reviewer: await this.people.label(review.content.reviewer) };
  }

  private async entityExhibit(input: EntityExhibitInput): Promise<EntityFacts> {
    const entity = await getEntity(this.ctx, this.actor, input.entityId);
    if (entity.kind !== input.kind) {
      const said = { number: input.number, name: entity.nameEn ?? entity.nameAr ?? entity.number ?? input.entityId, kind: entity.kind };
      throw new Invalid(input.kind === "unit" ? say("report.notAUnit", said) : input.kind === "person" ? say("report.notAPerson", said) : say("report.notAFacility", said), "exhibits");
    }
    const links = await Promise.all((await linksOf(this.ctx, this.actor, { recordId: entity.id })).map((l) => this.link(l, entity.id)));
    return { kind: input.kind, ...this.common(input, []), entity, links };
  }

  /** Governorate, parents and the like of an entity, named in the report's language. */
  term(v: "governorate", code: string | null): string | null {
    if (!code) return null;
    const t = this.vocab.get(v, code);
    return t ? (this.lang === "ar" ? t.labelAr : t.labelEn) : code;
  }

  private async link(l: LinkView, selfId: string): Promise<LinkFacts> {
    const other = l.from.id === selfId ? l.to : l.from;
    const type = this.vocab.get("link_type", l.type);
    return {
      type: type ? (this.lang === "ar" ? type.labelAr : type.labelEn) : l.type,
      other: await this.nameOf(other.kind, other.id),
      reasoning: l.reasoning,
      confidence: l.confidence,
      evidence: l.evidence.map(evidenceText),
    };
  }

  private async nameOf(kind: string, id: string): Promise<string> {
    const hit = this.entityNames.get(id);
    if (hit) return hit;
    let name = id;
    if (kind === "body") {
      name = (await getBody(this.ctx, this.actor, id)).ref;
    } else {
      const e = await getEntity(this.ctx, this.actor, id);
      const named = this.lang === "ar" ? (e.nameAr ?? e.nameEn) : (e.nameEn ?? e.nameAr);
      name = [named, e.number].filter(Boolean).join(" · ") || id;
    }
    this.entityNames.set(id, name);
    return name;
  }
}

function evidenceText(e: EvidenceInput): string {
  return `${e.kind}: ${e.kind === "photo" ? e.ref.slice(0, 16) + "…" : e.ref}${e.note ? ` (${e.note})` : ""}`;
}

