import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { recordOriginalRead, recordPersonalDataRead } from "../../src/access/reads.ts";
import { openSealedIdentity } from "../../src/access/sealed.ts";
import { downloadOriginal, revealOriginal, sealIdentity } from "../../src/archive/index.ts";
import { rotateSealedKey } from "../../src/access/keys.ts";
import { addUser } from "../../src/access/users.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { editBody, mergeBodies, setPhotoRole, splitBody } from "../../src/catalogue/bodies.ts";
import { createEntity, updateEntity } from "../../src/catalogue/entities.ts";
import { addNumber, checkNumber, retireNumber } from "../../src/catalogue/numbers.ts";
import { createLink, retractLink } from "../../src/catalogue/links.ts";
import { addVocabularyTerm, updateVocabularyTerm } from "../../src/catalogue/vocabularies.ts";
import { exportBodiesCsv } from "../../src/catalogue/csv-import.ts";
import { importBodyDocuments } from "../../src/catalogue/documents.ts";
import { buildPackage } from "../../src/dossiers/package.ts";
import { createDossier, freezeDossier } from "../../src/dossiers/dossiers.ts";
import { addExhibit, reviseReasoning, withdrawExhibit } from "../../src/dossiers/exhibits.ts";
import { markRegion, withdrawRegion } from "../../src/dossiers/redaction.ts";
import { errorLevel, runAuthenticity } from "../../src/authenticity/index.ts";
import { createReport, setConsent, updateReport } from "../../src/families/reports.ts";
import { rerank } from "../../src/families/matching.ts";
import { decide, disclose } from "../../src/families/disclosure.ts";
import { linkMember } from "../../src/families/members.ts";
import { withdrawDisclosure } from "../../src/families/withdrawal.ts";
import { previewFace } from "../../src/families/face-preview.ts";
import { acceptReportProposal, listReportProposals, refuseReportProposal } from "../../src/families/proposals.ts";
import { proposeChange } from "../../src/families/portal.ts";
import { createReferral, updateReferral } from "../../src/families/referrals.ts";
import { drawReviewSample } from "../../src/review/samples.ts";
import { addItem, addRegion, approveExhibition, createExhibition, exportExhibition, orderItems, publishExhibition, removeItem, removeRegion, returnToDraft, previewItem, reviewItem, submitExhibition, sweepConsent, updateExhibition, updateItem, withdrawExhibition } from "../../src/exhibitions/index.ts";
import { grantMirror, revokeMirror } from "../../src/mirror/index.ts";
import { addWitness, generateCosigner, removeWitness, setWitnessQuorum } from "../../src/ledger/index.ts";
import { parseLeaf, type CustodyEvent } from "../../src/ledger/events.ts";
import { isCommitment } from "../../src/ledger/openings.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";
import { caseworker, familyMember, REPORT, seedPhoto } from "../support/casework.ts";

/**
 * The attack: read the public log (every entry bundle, as a mirror or a leaked copy would hold it) for what people
 * typed, paths on a card, file names, names, e-mail addresses and the server's login name. The real use cases run
 * with a marker in every word a person types; then every leaf is read: no marker, no name, no address, no path,
 * no login name, and every field is one of an allow-list of kinds (hash, commitment, id, enum, number, time).
 * A kind of event the code can log that this test neither produces nor lists as not driven fails it.
 */
// Never inside an id (base32: a–z, 2–7) or a hash (hex), so a match is a typed word and nothing else.
const MARK = "zz08";
const LOGIN = `${MARK}login`;
const archivist: Actor = { kind: "user", id: "usr_archivist", role: "archivist" };
const admin: Actor = { kind: "user", id: "usr_admin", role: "admin" };

for (const { backend, skip } of await backends()) {
  test(`reading every leaf of the log for typed words, paths, names, e-mails and login names finds none, on ${backend.name}`, { skip, timeout: 300_000 }, async () => {
    const savedUser = process.env.USER;
    process.env.USER = LOGIN;
    const { archive: a, close } = await freshArchive(backend);
    try {
      const { dir } = await demoCard(2, true, "leaf-leaks");
      const operator = operatorActor();
      const s = await ingestCard(a, operator, { path: dir, label: `${MARK} card from the lawyer` });
      await ingestCard(a, operator, { path: dir, label: `${MARK} same card` });
      const shas = (await a.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").execute()).map((r) => r.sha256);
      await revealOriginal(a, archivist, { sha256: shas[0]!, reason: `${MARK} reveal reason for /cases/215.txt` });
      await downloadOriginal(a, archivist, { sha256: shas[0]!, reason: `${MARK} download reason for /cases/215.txt` });
      await a.db.transaction((tx) => recordOriginalRead(a, tx, archivist, shas[0]!));
      await a.db.transaction((tx) => recordPersonalDataRead(a, tx, caseworker, [{ id: "rep_x", role: "report" }], { read: "case" }));
      await sealIdentity(a, admin, { sourceId: s.source, identity: `${MARK} photographer's name` });
      await openSealedIdentity(a, admin, { sourceId: s.source, reason: `${MARK} opening reason` });
      await rotateSealedKey(a, admin);
      await grantMirror(a, admin, { name: `${MARK} Museum of Memory` });
      await revokeMirror(a, admin, { name: `${MARK} Museum of Memory` });
      // the witness policy edited on the admin screen: names, keys and addresses typed by the admin
      await addWitness(a, admin, { name: `${MARK}witness`, vkey: generateCosigner(`${MARK}.example/witness`).vkey, url: `https://${MARK}.example/witness` });
      await addWitness(a, admin, { name: `${MARK}other`, vkey: generateCosigner(`${MARK}.example/other`).vkey });
      await setWitnessQuorum(a, admin, { threshold: 1, members: [`${MARK}witness`, `${MARK}other`] });
      await setWitnessQuorum(a, admin, { quorum: `${MARK}witness` });
      await removeWitness(a, admin, { name: `${MARK}other` });
      await addUser(a, operator, { email: `${MARK}.person@example.org`, role: "investigator" });
      await verifyArchive(a, operator);
      await buildPackage(a, operator, { originals: shas.slice(0, 2), recipient: `${MARK} Office of the Prosecutor`, purpose: `${MARK} case 12`, out: join(tempDir("dalil-leaf-"), "pkg") });
      await markRegion(a, archivist, { sha256: shas[0]!, x: 1, y: 1, w: 10, h: 10, label: "face" }).then((r) => withdrawRegion(a, archivist, r.id));
      // An authenticity analysis of the card (the paths on it are read for file numbers) and an error-level map.
      await runAuthenticity(a, archivist, { source: s.source, content: false });
      await errorLevel(a, archivist, { sha256: shas[0]!, quality: 90 });

      // The catalogue: bodies with typed numbers and names, split and merged with reasons; an entity; an export.
      const photos = [await seedPhoto(a, 1), await seedPhoto(a, 2), await seedPhoto(a, 3)];
      const [b1, b2] = await seedBodies(a, investigator, [
        { sex: "male", nameAr: "محمد الخطيب", photoDate: "2013-05-01", photos: [{ sha256: photos[0]!, role: "face" }, { sha256: photos[1]!, role: "full" }] },
        { sex: "male", photoDate: "2013-06-01", photos: [{ sha256: photos[2]!, role: "face" }] },
      ]);
      const split = await splitBody(a, investigator, { bodyId: b1!.id, photos: [photos[1]!], reason: `${MARK} split reason` });
      await mergeBodies(a, investigator, { keep: b2!.id, absorb: split.created.id, reason: `${MARK} merge reason` });
      const ent = await createEntity(a, investigator, { kind: "person", nameEn: `${MARK} Officer Name`, nameAr: "ضابط" });
      await updateEntity(a, investigator, { id: ent.id, title: `${MARK} colonel` });
      await editBody(a, investigator, { id: b2!.id, externalRef: `${MARK}/ref/7.jpg`, hospital: "601", photoDate: "2013-06-02" });
      await setPhotoRole(a, investigator, { bodyId: b2!.id, sha256: photos[2]!, role: "full" });
      const num = await addNumber(a, investigator, { bodyId: b2!.id, role: "detainee", value: "5311" });
      await checkNumber(a, admin, { numberId: num.id, agree: false, correctedValue: "5312" });
      const num2 = await addNumber(a, investigator, { bodyId: b2!.id, role: "branch", value: "215" });
      await retireNumber(a, investigator, { numberId: num2.id, reason: `${MARK} retired` });
      const unit = await createEntity(a, investigator, { kind: "unit", nameEn: `${MARK} Raids Branch` });
      const link = await createLink(a, investigator, { type: "held_by", from: { kind: "body", id: b2!.id }, to: { kind: "entity", id: unit.id }, evidence: [{ kind: "testimony", ref: `${MARK} witness W-3` }], reasoning: `${MARK} seen on the card` });
      await retractLink(a, investigator, { id: link.id, reason: `${MARK} retracted` });
      await addVocabularyTerm(a, admin, { vocabulary: "hospital", code: "mujtahid", labelAr: "مشفى المجتهد", labelEn: `${MARK} Al-Mujtahid Hospital` });
      await updateVocabularyTerm(a, admin, { vocabulary: "hospital", code: "mujtahid", labelEn: `${MARK} renamed` });
      await exportBodiesCsv(a, investigator);
      const documents = await importBodyDocuments(a, investigator, { csv: `ref,detainee_no,name_lat\n${b2!.ref},7788,${MARK} Haddad\n`, source: `${MARK} Register 601` });
      assert.equal(documents.attached, 2);
      await drawReviewSample(a, investigator, { size: 1, seed: `${MARK} seed` });

      // A dossier: named and reasoned in words, an exhibit withdrawn with a reason, a version frozen.
      const d = await createDossier(a, investigator, { name: `${MARK} dossier name`, description: `${MARK} description` });
      await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photos[0]!, reasoning: `${MARK} reasoning` });
      const ex2 = await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photos[2]!, reasoning: `${MARK} second` });
      await reviseReasoning(a, investigator, { dossierId: d.id, number: ex2.number, reasoning: `${MARK} revised` });
      await withdrawExhibit(a, investigator, { dossierId: d.id, number: ex2.number, reason: `${MARK} withdrawn` });
      await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photos[2]!, reasoning: `${MARK} restored` });
      await freezeDossier(a, investigator, { id: d.id, note: `${MARK} note` });

      // Families: a report with names, edited, consent given.
      const r = await createReport(a, caseworker, { ...REPORT, nameLat: `${MARK} Khatib` });
      await updateReport(a, caseworker, { id: r.id, fatherName: `${MARK} father` });
      await setConsent(a, caseworker, r.id, "viewingPhotos", true);
      // A confirmed decision identifies a body in the catalogue; changing it reverses that.
      await setConsent(a, caseworker, r.id, "dataSharing", true);
      await rerank(a, caseworker, { reportId: r.id });
      await decide(a, caseworker, { report: r.ref, bodyId: b2!.ref, status: "confirmed", reason: `${MARK} DNA result` });
      await decide(a, caseworker, { report: r.ref, bodyId: b2!.ref, status: "probable", reason: `${MARK} lab withdrew it` });
      // A DNA referral with the family's consent: the laboratory, its reference, the donor and the note stay off the log.
      await setConsent(a, caseworker, r.id, "dnaReferral", true);
      const dna = await createReferral(a, caseworker, { report: r.ref, bodyId: b2!.ref, sampleFrom: `${MARK} mother`, lab: `${MARK} lab`, labRef: `${MARK}-77`, note: `${MARK} note` });
      await updateReferral(a, caseworker, { id: dna.id, status: "result", result: "inconclusive", resultOn: "2026-01-02", note: `${MARK} retest` });
      // A disclosure to a family member, withdrawn with a note to them.
      await setPhotoRole(a, investigator, { bodyId: b2!.id, sha256: photos[2]!, role: "face" });
      const seen = await previewFace(a, caseworker, { report: r.ref, bodyId: b2!.ref, photo: photos[2]!, region: { cx: 0.5, cy: 0.5, size: 0.6 } });
      const relative = await familyMember(a, "leaf");
      await linkMember(a, caseworker, { report: r.ref, userId: relative.id, relationship: `${MARK} aunt` });
      const said = await disclose(a, caseworker, { report: r.ref, bodyId: b2!.ref, stage: "text", text: `${MARK} we may have found him`, consentNote: `${MARK} by phone`, reason: `${MARK} probable` });
      await disclose(a, caseworker, { report: r.ref, bodyId: b2!.ref, stage: "blurred_face", text: `${MARK} a blurred image`, consentNote: `${MARK} in person`, reason: `${MARK} ready`, preview: seen.id });
      await withdrawDisclosure(a, caseworker, { id: said.id, reason: "other", note: `${MARK} we were wrong, we will call you` });
      // A family files from the portal; the caseworker accepts it; what the family adds is accepted or refused.
      const filed = await createReport(a, relative, { nameAr: `${MARK} سامر`, nameLat: `${MARK} Samer`, sex: "male", reporterContact: `${MARK} phone` });
      await acceptReportProposal(a, caseworker, { id: (await listReportProposals(a, caseworker, { report: filed.id }))[0]!.id, reason: `${MARK} read with them` });
      const added = await proposeChange(a, relative, { report: filed.ref, fields: { marks: [{ type: "scar", region: "arm_left", description: `${MARK} scar` }] } });
      await acceptReportProposal(a, caseworker, { id: added.id });
      const corrected = await proposeChange(a, relative, { report: filed.ref, fields: { birthPlace: `${MARK} Homs` } });
      await refuseReportProposal(a, caseworker, { id: corrected.id, reason: `${MARK} his papers say Hama` });

      // An exhibition: titles, statements and captions in words, every layer, a second person's review, a consent
      // given and withdrawn (the item taken down and restored), an export.
      const curator: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
      const reviewer: Actor = { kind: "user", id: "usr_curator_b", role: "curator" };
      await decide(a, caseworker, { report: r.ref, bodyId: b2!.ref, status: "confirmed", reason: `${MARK} confirmed again` });
      const ex = await createExhibition(a, curator, { title: { en: `${MARK} title`, ar: "عنوان" }, statement: { en: `${MARK} statement` }, languages: ["ar", "en"] });
      await updateExhibition(a, curator, { id: ex.id, statement: { ar: "بيان المعرض" } });
      const shown = await addItem(a, curator, { exhibition: ex.id, kind: "photo", sha256: photos[0]!, caption: { en: `${MARK} caption`, ar: "تعليق" } });
      const ofBody = await addItem(a, curator, { exhibition: ex.id, kind: "body", body: b2!.ref, caption: { en: `${MARK} body caption` } });
      const panel = await addItem(a, curator, { exhibition: ex.id, kind: "text", caption: { en: `${MARK} panel words` } });
      const stray = await addItem(a, curator, { exhibition: ex.id, kind: "text", caption: { en: `${MARK} stray` } });
      const chart = await addItem(a, curator, { exhibition: ex.id, kind: "chart", chart: "byBranch", caption: { en: `${MARK} chart caption` } });
      await removeItem(a, curator, stray.id);
      for (const layer of ["faces", "numbers", "marks", "background", "everything"] as const) await addRegion(a, curator, { item: shown.id, layer, x: 10, y: 10, w: 20, h: 20, origin: layer === "faces" ? "suggested" : "drawn" });
      const gone = await addRegion(a, curator, { item: shown.id, layer: "faces", x: 1, y: 1, w: 2, h: 2 });
      await removeRegion(a, curator, gone.id);
      await updateItem(a, curator, { item: shown.id, caption: { en: `${MARK} recaptioned` }, layers: { everything: "silhouette" }, graphic: true });
      await orderItems(a, curator, { exhibition: ex.id, order: [panel.id, shown.id, ofBody.id, chart.id] });
      await submitExhibition(a, curator, ex.id);
      await returnToDraft(a, reviewer, ex.id);
      await submitExhibition(a, curator, ex.id);
      await previewItem(a, reviewer, shown.id);
      for (const it of [shown, ofBody, panel, chart]) await reviewItem(a, reviewer, { item: it.id });
      await approveExhibition(a, reviewer, ex.id);
      await setConsent(a, caseworker, r.id, "publicDisplay", true);
      await publishExhibition(a, reviewer, ex.id);
      await exportExhibition(a, reviewer, { exhibition: ex.id, out: join(tempDir("dalil-leaf-"), "exhibition") });
      await setConsent(a, caseworker, r.id, "publicDisplay", false);
      await sweepConsent(a, reviewer);
      await setConsent(a, caseworker, r.id, "publicDisplay", true);
      await sweepConsent(a, reviewer);
      await withdrawExhibition(a, reviewer, ex.id);

      const rows = await a.db.db.selectFrom("custody_events").select(["seq", "leaf"]).orderBy("seq").execute();
      const events = rows.map((x) => ({ seq: x.seq, text: x.leaf.toString("utf8"), e: parseLeaf(x.leaf) }));
      const problems: string[] = [];
      for (const { seq, text, e } of events) {
        const where = `event ${seq} (${kindOf(e)})`;
        if (new RegExp(MARK, "i").test(text)) problems.push(`${where} holds words a person typed: ${text.slice(0, 300)}`);
        if (text.includes("operator:")) problems.push(`${where} holds the server's login name`);
        if (text.includes(dir)) problems.push(`${where} holds the card's path`);
        for (const [path, v] of fields(e)) {
          const kinds = ALLOWED[`${e.type}|${path}`] ?? ALLOWED[`*|${path}`];
          if (!kinds) {
            problems.push(`${where}: field ${path} = ${JSON.stringify(v)} is not in the allow-list`);
            continue;
          }
          if (!kinds.some((k) => KINDS[k](v))) problems.push(`${where}: field ${path} = ${JSON.stringify(v)} is not a ${kinds.join(" or ")}`);
          if (typeof v === "string" && !kinds.includes("format")) {
            for (const [what, re] of LEAKS) if (re.test(v)) problems.push(`${where}: field ${path} holds ${what}: ${JSON.stringify(v)}`);
          }
        }
      }
      assert.deepEqual(problems, []);
      assert.ok(events.some((x) => x.e.actor.kind === "operator" && isCommitment(x.e.actor.id)), "the operator is a commitment");

      const produced = new Set(events.map((x) => kindOf(x.e)));
      const inCode = kindsInCode();
      const notCovered = [...inCode].filter((k) => !produced.has(k) && !NOT_DRIVEN.has(k)).sort();
      assert.deepEqual(notCovered, [], "event kinds the code can log that this test neither drives nor lists in NOT_DRIVEN");
      const unknown = [...produced].filter((k) => !inCode.has(k)).sort();
      assert.deepEqual(unknown, [], "event kinds produced that the scan of the code did not find");
    } finally {
      process.env.USER = savedUser;
      await close();
    }
  });
}

/** Patterns no string in a leaf may hold (a format identifier such as "dalil.custody/1" aside). */
const LEAKS: [string, RegExp][] = [
  ["an e-mail address", /@/],
  ["a path", /\//],
  ["a file name", /\.(?:jpe?g|png|tiff?|heic|webp|gif|dng|nef|cr2|arw|raw|txt|zip|img|iso|dd|bin|csv|pdf|json|mp4|mov|docx?)$/i],
  ["an Arabic word", /[\u0600-\u06ff]/],
  ["free text", /\s\S+\s\S+\s/],
];

type Kind = "term" | "field" | "hash" | "commitment" | "id" | "keyid" | "enum" | "digits" | "number" | "boolean" | "time" | "format" | "version" | "null";
const KINDS: Record<Kind, (v: unknown) => boolean> = {
  hash: (v) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v),
  // A changed field's name, or its name and the photo it concerns (photoRole:<sha256>).
  field: (v) => typeof v === "string" && /^[a-z][A-Za-z]*(?::[0-9a-f]{64})?$/.test(v),
  // A salted commitment (openings.ts), or a catalogue history commitment (base64url SHA-256, catalogue/history.ts).
  commitment: (v) => isCommitment(v) || (typeof v === "string" && /^[A-Za-z0-9_-]{43}$/.test(v)),
  id: (v) => typeof v === "string" && /^(?:[a-z]+_[A-Za-z0-9_]+|[A-Z]-\d+(?:-\d+)?|system:dalil|commit:[0-9a-f]{64}|all-open)$/.test(v),
  term: (v) => typeof v === "string" && /^[a-z_]+:[a-z0-9_-]{1,40}$/.test(v),
  keyid: (v) => typeof v === "string" && /^[0-9a-f]{16}$/.test(v),
  enum: (v) => typeof v === "string" && v.length <= 40 && /^[a-z][a-z0-9._:-]*(?: [a-z][a-z0-9._:-]*){0,2}$/i.test(v),
  digits: (v) => typeof v === "string" && /^\d{1,9}$/.test(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  time: (v) => typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/.test(v),
  format: (v) => typeof v === "string" && /^dalil\.[a-z.-]+\/\d+$/.test(v),
  version: (v) => typeof v === "string" && /^\d+\.\d+\.\d+(?:-[a-z0-9.]+)?$/.test(v),
  null: (v) => v === null,
};

/**
 * Every leaf field (array indexes as [], record ids used as keys as <id>), by path: `*|` for any event type, or
 * `type|` for one. A field added to an event fails the test until it is listed here with its kind.
 */
const ALLOWED: Record<string, Kind[]> = {
  "*|v": ["format"],
  "*|id": ["id"],
  "*|type": ["enum"],
  "*|at": ["time"],
  "*|outcome": ["enum"],
  "*|actor.kind": ["enum"],
  "*|actor.id": ["id"],
  "*|actor.role": ["enum"],
  "*|software.name": ["enum"],
  "*|software.version": ["version"],
  "*|objects[].sha256": ["hash"],
  // A controlled-vocabulary term is named vocabulary:code (a code an administrator chose, like a hospital's "601").
  "*|objects[].id": ["id", "term"],
  "*|objects[].role": ["enum"],
  "*|detail.action": ["enum"],
  "*|detail.reason": ["commitment"],
  "*|detail.warning": ["commitment"],
  "*|detail.source": ["id"],
  "*|detail.entry": ["number"],
  "*|detail.size": ["number", "null"],
  "*|detail.format": ["enum", "format"],
  "*|detail.sha256": ["hash"],
  "*|detail.version": ["number"],
  "*|detail.bytesKeptIn": ["hash", "null"],
  "accession|detail.containerNewlyStored": ["boolean"],
  "accession|detail.fsType": ["enum", "null"],
  "accession|detail.kind": ["enum"],
  "creation|detail.renditions[].kind": ["enum"],
  "creation|detail.renditions[].sha256": ["hash"],
  "creation|detail.renditions[].width": ["number"],
  "creation|detail.renditions[].height": ["number"],
  "creation|detail.repair": ["boolean"],
  "creation|detail.derivative": ["enum"],
  "creation|detail.quality": ["number"],
  "validation|detail.analysis": ["enum"],
  "validation|detail.run": ["id"],
  "validation|detail.parameters.content": ["boolean"],
  "validation|detail.photos": ["number"],
  "validation|detail.findings.information": ["number"],
  "validation|detail.findings.look": ["number"],
  "validation|detail.findings.strong": ["number"],
  "validation|detail.input": ["hash"],
  "validation|detail.report": ["hash"],
  "export|detail.reason": ["enum"], // a failed build: the error's code (ENOSPC, interrupted), never its message
  "export|detail.completed": ["boolean"],
  "export|detail.content": ["enum"],
  "export|detail.exhibits": ["number"],
  "export|detail.package": ["id"],
  "export|detail.recipient": ["commitment"],
  "export|detail.purpose": ["commitment"],
  "export|detail.rows": ["number"],
  "export|detail.copies.<id>": ["hash"],
  "export|detail.report": ["hash"],
  "export|detail.dossier": ["id"],
  "export|detail.versionSha256": ["hash"],
  "replication|detail.act": ["enum"],
  "replication|detail.mirror": ["id"],
  "replication|detail.name": ["commitment"],
  "replication|detail.root": ["hash"],
  "replication|detail.objects": ["number"],
  "replication|detail.copy": ["commitment"],
  "replication|detail.object": ["hash"],
  "fixity check|detail.audit": ["enum"],
  "fixity check|detail.copies": ["number"],
  "fixity check|detail.missing": ["number"],
  "fixity check|detail.corrupt": ["number"],
  "fixity check|detail.extra": ["number"],
  "fixity check|detail.repaired": ["number"],
  "fixity check|detail.bytes": ["number"],
  "fixity check|detail.checked": ["number"],
  "fixity check|detail.failed": ["number"],
  "witness policy change|detail.change": ["enum"],
  "witness policy change|detail.witness": ["commitment"],
  "witness policy change|detail.key": ["hash"],
  "witness policy change|detail.policy": ["hash"],
  "witness policy change|detail.witnesses": ["number"],
  "witness policy change|detail.groups": ["number"],
  "witness policy change|detail.threshold": ["number"],
  "witness policy change|detail.members": ["number"],
  "key rotation|detail.key": ["enum"],
  "key rotation|detail.from": ["keyid", "null"],
  "key rotation|detail.to": ["keyid"],
  "key rotation|detail.records": ["number"],
  "key rotation|detail.sidecars": ["number"],
  "key rotation|detail.rewrapped": ["number"],
  "metadata modification|detail.ref": ["id"],
  "metadata modification|detail.newRef": ["id"],
  "metadata modification|detail.absorbedRef": ["id"],
  "metadata modification|detail.splitFrom": ["id"],
  "metadata modification|detail.fields[]": ["field"],
  "metadata modification|detail.history": ["commitment"],
  "metadata modification|detail.record": ["enum"],
  "metadata modification|detail.change": ["enum"],
  "metadata modification|detail.key": ["keyid"],
  "metadata modification|detail.dossier": ["id"],
  "metadata modification|detail.exhibit": ["id"],
  "metadata modification|detail.exhibits[]": ["id"],
  "metadata modification|detail.kind": ["enum"],
  "metadata modification|detail.label": ["enum"],
  "metadata modification|detail.region": ["id"],
  "metadata modification|detail.x": ["number"],
  "metadata modification|detail.y": ["number"],
  "metadata modification|detail.w": ["number"],
  "metadata modification|detail.h": ["number"],
  "metadata modification|detail.import": ["id"],
  "metadata modification|detail.row": ["number"],
  "metadata modification|detail.rows": ["number"],
  "metadata modification|detail.created": ["number"],
  "metadata modification|detail.updated": ["number"],
  "metadata modification|detail.unchanged": ["number"],
  // numbers and names read from documents (catalogue/documents.ts): the source named by a commitment, counts
  "metadata modification|detail.document": ["commitment"],
  "metadata modification|detail.attached": ["number"],
  "metadata modification|detail.bodies": ["number"],
  "metadata modification|detail.proposal": ["id"],
  "metadata modification|detail.proposals": ["number"],
  "metadata modification|detail.proposals[]": ["id"],
  "metadata modification|detail.run": ["id"],
  "metadata modification|detail.reader": ["enum"],
  "metadata modification|detail.photos": ["number"],
  "metadata modification|detail.readings": ["number"],
  "metadata modification|detail.superseded": ["number"],
  "metadata modification|detail.item": ["id"],
  "metadata modification|detail.flag": ["id"],
  "metadata modification|detail.referral": ["id"],
  "metadata modification|detail.status": ["enum"],
  "metadata modification|detail.tier": ["enum"],
  "metadata modification|detail.user": ["id"],
  "metadata modification|detail.duplicate": ["id"],
  "metadata modification|detail.decision": ["id"],
  "opened sealed record|detail.reason": ["commitment"],
  "revealed graphic image|detail.reason": ["commitment"],
  "viewed personal data|detail.read": ["enum"],
  "viewed personal data|detail.reports": ["digits"],
  "review|detail.seed": ["commitment"],
  "review|detail.strata": ["commitment"],
  "review|detail.size": ["number"],
  "review|detail.doubleShare": ["number"],
  "review|detail.population": ["number"],
  "review|detail.populationSha256": ["hash"],
  "review|detail.chosenSha256": ["hash"],
  "review|detail.assignments": ["number"],
  "review|detail.perReviewer.<id>": ["number"],
  "review|detail.assignmentsSha256": ["hash"],
  "review|detail.review": ["id"],
  "review|detail.reviewer": ["id"],
  "review|detail.submittedAt": ["time"],
  "review|detail.supersedes": ["id"],
  "review|detail.item": ["id"],
  "review|detail.method": ["enum"],
  "review|detail.by": ["id"],
  "review|detail.at": ["time"],
  "disclosure|detail.request": ["id"],
  "disclosure|detail.unblurred": ["boolean"],
  "disclosure|detail.blurred": ["boolean"],
  "disclosure|detail.stage": ["enum"],
  "disclosure|detail.status": ["enum"],
  "disclosure|detail.recipient": ["id"],
  "disclosure|detail.withdrawal": ["enum"],
  // the blurred face crop a caseworker previewed and the one sent (the same bytes), by hash
  "disclosure|detail.image": ["hash"],
  "identification|detail.decision": ["id"],
  "identification|detail.status": ["enum"],
  "identification|detail.previous": ["enum"],
  // a body identified as a report's person, or no longer (catalogue/identifications.ts): its ref and the history's commitment
  "identification|detail.ref": ["id"],
  "identification|detail.history": ["commitment"],
  "identification|detail.fields[]": ["field"],
  // Exhibitions (src/exhibitions): ids, enums, numbers, the layers' switches and the SHA-256 of records.
  "*|detail.exhibition": ["id"],
  "metadata modification|detail.languages[]": ["enum"],
  "metadata modification|detail.position": ["number"],
  "metadata modification|detail.layers.faces": ["boolean"],
  "metadata modification|detail.layers.numbers": ["boolean"],
  "metadata modification|detail.layers.marks": ["boolean"],
  "metadata modification|detail.layers.background": ["boolean"],
  "metadata modification|detail.layers.everything": ["enum"],
  "metadata modification|detail.order[]": ["id"],
  "metadata modification|detail.layer": ["enum"],
  "metadata modification|detail.origin": ["enum"],
  "metadata modification|detail.from": ["enum"],
  "metadata modification|detail.to": ["enum"],
  "metadata modification|detail.items": ["number"],
  "metadata modification|detail.reviews[]": ["hash"],
  "metadata modification|detail.records[]": ["hash"],
  "metadata modification|detail.cause": ["enum"],
  "redaction|detail.item": ["id"],
  "redaction|detail.record": ["hash", "null"],
  "redaction|detail.review": ["hash"],
  "redaction|detail.regions": ["number"],
  // a chart item (exhibitions/items.ts): which breakdown, and the SHA-256 of its numbers frozen by the review
  "metadata modification|detail.chart": ["enum"],
  "redaction|detail.chart": ["enum"],
  "redaction|detail.data": ["hash"],
  "viewed original|detail.read": ["enum"],
  "export|detail.images": ["number"],
  "export|detail.withheld": ["number"],
  "export|detail.manifest": ["hash"],
  // a confirmed decision carried from a report merged into the one kept (families/identification.ts)
  "identification|detail.carried": ["id"],
};

function fields(e: CustodyEvent): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, `${path}[]`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${/^(?:[A-Z]-\d|[a-z]+_)/.test(k) ? "<id>" : k}` : k);
    else out.push([path, v]);
  };
  walk(e, "");
  return out;
}

/** An event's kind: its action where it names one (catalogue, families, dossiers, reviews), else its type. */
function kindOf(e: CustodyEvent): string {
  return typeof e.detail.action === "string" ? e.detail.action : e.type;
}

/**
 * Every event kind the source can log: the event types passed to custody(…) and the actions named in the same
 * modules (catalogue changes go through recordChanges, whose type defaults to "metadata modification").
 */
function kindsInCode(): Set<string> {
  const root = fileURLToPath(new URL("../../src/", import.meta.url));
  const out = new Set<string>();
  const files = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? files(join(d, n)) : n.endsWith(".ts") ? [join(d, n)] : []));
  for (const f of files(root)) {
    if (/routes\.ts$|policy\.ts$|[/\\]http[/\\]|[/\\]cli[/\\]/.test(f)) continue;
    const text = readFileSync(f, "utf8");
    if (!/custody\(|recordChanges|recordManyChanges|updateBodyInTx|createBodyInTx|logDossierChange|logExhibition/.test(text)) continue;
    for (const m of text.matchAll(/custody\(\s*"([^"]+)"/g)) out.add(m[1]!);
    // A use case that logs one of several types passes the type to a shared builder as its last argument.
    for (const m of text.matchAll(/grantOriginal\([^)]*"([^"]+)"\)/g)) out.add(m[1]!);
    for (const m of text.matchAll(/action: "([a-z]+\.[a-z.-]+)"/g)) out.add(m[1]!);
  }
  return out;
}

/**
 * Kinds the scan finds that this test does not produce. Each has a reason; the second group is work left: their
 * builders put only ids, enums, numbers and hashes in the leaf (read in review), and the allow-list above already
 * names their fields, but no run of this test has proved it.
 */
const NOT_DRIVEN = new Set<string>([
  // Event types that are always logged with an action (the action is their kind here).
  "disclosure",
  "identification",
  "review",
  // A policy action that the scan picks up in families code, not an event action.
  "report.read",
  // Not driven yet (see above). deletion (upload removed once ingested, bag expired) and transfer (a package
  // downloaded) carry ids, enums and a file count; test/dossiers/package-download.test.ts reads the transfer leaf.
  "deletion",
  "transfer",
  "body.import",
  "catalogue.import",
  "case.flag-cleared",
  "case.flagged",
  "disclosure.image-checked",
  "disclosure.image-viewed",
  "disclosure.request-declined",
  "disclosure.requested",
  "grouping.accept",
  "grouping.merge",
  "grouping.propose",
  "grouping.reject",
  "grouping.split",
  "link.edit",
  "number.check",
  "report.consent",
  "report.duplicate-rejected",
  "report.duplicates-proposed",
  "report.member-ended",
  "report.merge",
  "body.identification-moved",
  "review.assign",
  "review.resolve",
  "review.status",
  "review.submit",
]);
