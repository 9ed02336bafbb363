/**
 * The static export of a published exhibition: the same files the live pages serve (publication.ts) written to a
 * folder any web host can serve. Reproducible: the same records give a byte-identical folder. The export is a
 * custody event naming the exhibition, how many images it holds and left out, and the manifest's SHA-256.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { loadExhibition } from "./records.ts";
import { logExhibition } from "./log.ts";
import { buildPublication } from "./publication.ts";
import { sweepConsent } from "./consent-sweep.ts";

export interface ExportResult {
  ref: string;
  out: string;
  files: string[];
  images: number;
  withheld: number;
  manifestSha256: string;
}

export async function exportExhibition(ctx: Ctx, actor: Actor, input: { exhibition: string; out: string }): Promise<ExportResult> {
  ctx.policy.require(actor, "exhibition.publish");
  const ex = await loadExhibition(ctx.db.db, input.exhibition);
  if (ex.status !== "published") throw new Conflict(say("exhibition.exportNotPublished", { ref: ex.ref, status: ex.status }));
  const out = resolve(input.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Invalid(say("exhibition.exportNotEmpty", { dir: out }), "out");
  await sweepConsent(ctx, actor);
  const pub = await buildPublication(ctx, ex);
  for (const [name, bytes] of pub.files) {
    const path = join(out, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
  const manifestSha256 = createHash("sha256").update(pub.files.get("manifest.json")!).digest("hex");
  await ctx.db.transaction((tx) =>
    logExhibition(ctx, tx, actor, ex.id, [], { action: "exhibition.export", images: pub.manifest.images.length, withheld: pub.withheld.length, manifest: manifestSha256 }, "export"),
  );
  return { ref: ex.ref, out, files: [...pub.files.keys()], images: pub.manifest.images.length, withheld: pub.withheld.length, manifestSha256 };
}
