import sharp from "sharp";
import type { Archive } from "../../src/app/context.ts";
import type { Actor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/users.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { seedBodies, investigator } from "./catalogue.ts";
import { previewFace } from "../../src/families/face-preview.ts";
import { createReport, type ReportInput, type ReportView } from "../../src/families/reports.ts";
import { acceptReportProposal, listReportProposals } from "../../src/families/proposals.ts";

/** Casework fixtures: family members' accounts, and bodies whose photos are real images in the blob store. */
export const caseworker: Actor = { kind: "user", id: "usr_cw", role: "family_caseworker" };

let n = 0;
/** A family member's account (a real user row: a tie names an account that exists). */
export async function familyMember(a: Archive, label: string): Promise<Actor> {
  const { user } = await addUser(a, operatorActor(), { email: `${label}-${++n}-${Date.now()}@example.org`, role: "family_member" });
  return { kind: "user", id: user.id, role: "family_member" };
}

/** A photo: a face-like drawing (a light oval with dark eyes and mouth) with EXIF naming a camera. */
export async function seedPhoto(a: Archive, seed: number): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="rgb(${40 + seed},60,90)"/>
    <ellipse cx="200" cy="150" rx="80" ry="100" fill="rgb(220,180,150)"/><circle cx="170" cy="125" r="12" fill="#111"/><circle cx="230" cy="125" r="12" fill="#111"/>
    <rect x="165" y="195" width="70" height="10" fill="#511"/></svg>`;
  // fine grain over the whole frame, like skin and fabric in a real photo: blurring it away is measurable
  const noise = Buffer.alloc(400 * 300 * 3);
  let x = 2463534242 + seed;
  for (let i = 0; i < noise.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    noise[i] = (x >>> 0) % 96;
  }
  const bytes = await sharp(Buffer.from(svg))
    .composite([{ input: noise, raw: { width: 400, height: 300, channels: 3 }, blend: "add" }])
    .jpeg()
    .withMetadata({ exif: { IFD0: { Make: "Nikon", Model: "D90" } } })
    .toBuffer();
  return storeOriginal(a, bytes, { width: 400, height: 300, make: "Nikon", model: "D90" }, `src_photo_${seed}`);
}

/** Stores bytes as a preserved original photograph of a one-file source (no ingest, no metadata reading). */
export async function storeOriginal(a: Archive, bytes: Buffer, info: { width: number; height: number; make?: string; model?: string }, sourcePrefix = "src_photo"): Promise<string> {
  const { sha256, size } = await a.blobs.putBuffer(bytes);
  const now = a.clock.now().toISOString();
  const sourceId = `${sourcePrefix}_${Math.random().toString(36).slice(2, 8)}`;
  await a.db.db
    .insertInto("sources")
    .values({ id: sourceId, label: "test card", kind: "folder", intake_path: "/media/card", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: "operator:test", files: 1, ingested: 1, duplicates: 0, quarantined: 0, bytes: size })
    .execute();
  await a.db.db
    .insertInto("originals")
    .values({ sha256, size, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: now, first_source_id: sourceId, width: info.width, height: info.height, phash: null, capture_time: null, camera_make: info.make ?? null, camera_model: info.model ?? null, camera_serial: null, metadata_json: null, exif_raw: null, xmp_raw: null })
    .onConflict((oc) => oc.column("sha256").doNothing())
    .execute();
  return sha256;
}

/** A body that matches the report of `reportInput` below, with a face photo and a second photo. */
export async function seedMatchingBody(a: Archive, seed = 1): Promise<{ id: string; ref: string; face: string; other: string }> {
  const face = await seedPhoto(a, seed);
  const other = await seedPhoto(a, seed + 100);
  const [b] = await seedBodies(a, investigator, [
    {
      sex: "male", ageMin: 22, ageMax: 32, photoDate: "2012-09-03", nameAr: "محمد احمد الخطيب",
      marks: [{ type: "scar", region: "arm_left", description: "scar left forearm" }],
      photos: [{ sha256: other, role: "full" }, { sha256: face, role: "face" }],
    },
  ]);
  return { id: b!.id, ref: b!.ref, face, other };
}

export const REPORT = {
  nameAr: "محمد أحمد الخطيب",
  nameLat: "Mohammad Ahmad al-Khatib",
  fatherName: "أحمد",
  sex: "male" as const,
  birthDate: "1985",
  arrestDate: "2012-05",
  arrestGovernorate: "Damascus",
  marks: [{ type: "scar", region: "arm_left", description: "scar on the left forearm" }],
};

/** A blurred face crop of the body's face photo, made and looked at by `who` (stage 2 sends only such a crop): its id. */
export async function seenFace(a: Archive, who: Actor, report: string, body: { ref: string; face: string }): Promise<string> {
  return (await previewFace(a, who, { report, bodyId: body.ref, photo: body.face, region: { cx: 0.5, cy: 0.5, size: 0.7 } })).id;
}

/** A report a family member files in the portal, read and accepted by a caseworker (so it is open and matched). */
export async function fileAsFamily(a: Archive, member: Actor, input: ReportInput): Promise<ReportView> {
  const r = await createReport(a, member, input);
  const p = (await listReportProposals(a, caseworker, { report: r.id })).find((x) => x.kind === "new")!;
  await acceptReportProposal(a, caseworker, { id: p.id });
  return { ...r, status: "open" };
}
