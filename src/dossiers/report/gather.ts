import type { Ctx } from "../../app/context.ts";
import type { Actor } from "../../core/actor.ts";
import { Invalid } from "../../core/errors.ts";
import { getBody, getEntity, linksOf, Vocabularies, type BodyDetail, type LinkView } from "../../catalogue/index.ts";
import { reviewsOfBody, type ReviewView } from "../../review/index.ts";

/**
 * What the report says about one exhibit, read through the modules' own use cases (so the policy decides what the
 * preparer may see) and kept as text only: images are made later, one at a time, straight to files.
 */
export interface ExhibitInput {
  number: string;
  bodyId: string;
  photos?: string[];
  reasoning?: string[];
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

export interface ExhibitFacts {
  number: string;
  body: BodyDetail;
  photos: PhotoFacts[];
  reasoning: string[];
  links: LinkFacts[];
  /** Latest version of each review chain the preparer may read. */
  reviews: ReviewView[];
  hiddenReviews: number;
  reviewsReadable: boolean;
}

const HEX64 = /^[0-9a-f]{64}$/;

export function checkExhibits(exhibits: ExhibitInput[]): void {
  if (exhibits.length === 0) throw new Invalid("A report needs at least one exhibit.", "exhibits");
  const seen = new Set<string>();
  for (const e of exhibits) {
    if (!e.number.trim()) throw new Invalid("Every exhibit needs its number.", "exhibits");
    if (seen.has(e.number)) throw new Invalid(`Exhibit number ${e.number} appears twice.`, "exhibits");
    seen.add(e.number);
    for (const p of e.photos ?? []) if (!HEX64.test(p)) throw new Invalid(`Exhibit ${e.number}: ${p} is not a SHA-256 in hex.`, "exhibits");
  }
}

export class Gatherer {
  private readonly entityNames = new Map<string, string>();
  private readonly vocab: Vocabularies;

  constructor(
    private readonly ctx: Ctx,
    private readonly actor: Actor,
    vocab: Vocabularies,
    private readonly lang: "ar" | "en",
  ) {
    this.vocab = vocab;
  }

  async exhibit(input: ExhibitInput): Promise<ExhibitFacts> {
    const { ctx, actor } = this;
    const body = await getBody(ctx, actor, input.bodyId);
    const own = new Map(body.photos.map((p) => [p.sha256, p]));
    const chosen = input.photos ?? body.photos.map((p) => p.sha256);
    for (const sha of chosen) {
      if (!own.has(sha)) throw new Invalid(`Exhibit ${input.number}: photo ${sha.slice(0, 12)}… is not one of the photos of body ${body.ref}.`, "exhibits");
    }
    const photos: PhotoFacts[] = [];
    for (const sha of chosen) {
      const events = await ctx.log.eventsFor(sha);
      const ingestion = events.find((e) => e.event.type === "ingestion");
      photos.push({ sha256: sha, role: own.get(sha)!.role, ingestedAt: ingestion?.seq ?? null, events: events.map((e) => e.seq) });
    }
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
    return { number: input.number, body, photos, reasoning: input.reasoning ?? [], links, reviews, hiddenReviews, reviewsReadable };
  }

  private async link(l: LinkView, bodyId: string): Promise<LinkFacts> {
    const other = l.from.id === bodyId ? l.to : l.from;
    const type = this.vocab.get("link_type", l.type);
    return {
      type: type ? (this.lang === "ar" ? type.labelAr : type.labelEn) : l.type,
      other: await this.nameOf(other.kind, other.id),
      reasoning: l.reasoning,
      confidence: l.confidence,
      evidence: l.evidence.map((e) => `${e.kind}: ${e.kind === "photo" ? e.ref.slice(0, 16) + "…" : e.ref}${e.note ? ` (${e.note})` : ""}`),
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
