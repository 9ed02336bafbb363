import type { Archive } from "../app/context.ts";
import { operatorActor, type Actor, type Role } from "../core/actor.ts";
import { addUser, listUsers } from "../access/index.ts";
import { listSources } from "../archive/index.ts";
import { acceptProposals, checkNumber, editBody, getBody, listProposals, proposeGroupings, readBodies } from "../catalogue/index.ts";
import { assignSample, drawReviewSample, myAssignments, submitReview } from "../review/index.ts";
import { createReport } from "../families/index.ts";
import { getSetting, setSetting } from "../db/settings.ts";
import { addExhibit, createDossier, enqueueDossierPackage, freezeDossier, listDossiers } from "../dossiers/index.ts";

/**
 * The demo's people, so `npm start` leads to a sign-in and every role has a home with something in it: one account
 * per working role (each with a one-time password, printed once), and the demo card's grouping queued as the
 * investigator's work, which the server's worker then runs (proposals with the numbers read from the cards).
 */
export const DEMO_PEOPLE: readonly { email: string; role: Role; groupsTheCard?: true }[] = [
  { email: "admin@demo.dalil", role: "admin" },
  { email: "archivist@demo.dalil", role: "archivist" },
  { email: "investigator@demo.dalil", role: "investigator", groupsTheCard: true },
  { email: "reviewer@demo.dalil", role: "forensic_reviewer" },
  { email: "caseworker@demo.dalil", role: "family_caseworker" },
  { email: "prosecutor@demo.dalil", role: "prosecutor" },
  { email: "curator@demo.dalil", role: "curator" },
];

export interface DemoAccount {
  email: string;
  role: Role;
  oneTimePassword: string;
}

/** Creates the demo's accounts when the archive has none, and queues grouping of the card just taken in. */
export async function seedDemo(a: Archive, newSource: string | null): Promise<{ accounts: DemoAccount[]; groupingJob: string | null }> {
  const accounts: DemoAccount[] = [];
  let investigator: Actor | null = null;
  if ((await listUsers(a, operatorActor())).length === 0) {
    for (const p of DEMO_PEOPLE) {
      const { user, oneTimePassword } = await addUser(a, operatorActor(), { email: p.email, role: p.role });
      accounts.push({ email: user.email, role: user.role, oneTimePassword });
      if (p.groupsTheCard) investigator = { kind: "user", id: user.id, role: user.role };
    }
  }
  const groupingJob = newSource && investigator ? (await proposeGroupings(a, investigator, { sourceId: newSource })).jobId : null;
  return { accounts, groupingJob };
}

/** Families who reported someone missing, written for the demo (no real person): two describe demo bodies. */
const DEMO_REPORTS = [
  { nameAr: "محمد أحمد الخطيب", nameLat: "Mohammad Ahmad al-Khatib", fatherName: "أحمد", sex: "male" as const, birthDate: "1985", arrestDate: "2012-05", arrestGovernorate: "Damascus", reporterRelationship: "mother" },
  { nameAr: "خالد عمر الحلبي", nameLat: "Khaled Omar al-Halabi", fatherName: "عمر", sex: "male" as const, birthDate: "1979", arrestDate: "2012-11", arrestGovernorate: "Aleppo", reporterRelationship: "brother" },
  { nameAr: "سامر يوسف درويش", nameLat: "Samer Youssef Darwish", fatherName: "يوسف", sex: "male" as const, birthDate: "1991", arrestDate: "2013-02", arrestGovernorate: "Homs", reporterRelationship: "wife" },
];
/** What the demo bodies are described as, so the reports above have candidates to weigh. */
const DEMO_DESCRIPTIONS = [
  { sex: "male" as const, ageMin: 25, ageMax: 32, photoDate: "2013-08" },
  { sex: "male" as const, ageMin: 30, ageMax: 40, photoDate: "2013-08" },
  { sex: "male" as const, ageMin: 18, ageMax: 25, photoDate: "2013-09" },
];
export const DEMO_DOSSIER = "Branch 215, 2013 (demo)";
const DEMO_REPORTS_FILED = "demo.reports-filed";

/**
 * Makes the demo archive worth opening, through the same use cases a person would use (each one a custody event):
 * the investigator accepts most of the grouping proposals (two stay to decide), describes three bodies; the
 * archivist checks some of the numbers read from the cards; the investigator draws a review sample for the
 * reviewer, who submits two of its reviews; the caseworker files three families' reports (re-ranked into
 * candidates); the investigator makes a dossier of two bodies and freezes it; the archivist builds a package of it
 * for the prosecutor. Each step looks first whether it was done, so a second start changes nothing. Queued work
 * (renditions, the card reader, re-ranking) runs here first, so the proposals exist before they are accepted.
 */
export async function furnishDemo(a: Archive, say: (line: string) => void): Promise<void> {
  const users = await listUsers(a, operatorActor());
  const who = (email: string): Actor | null => {
    const u = users.find((x) => x.email === email && !x.disabled);
    return u ? { kind: "user", id: u.id, role: u.role } : null;
  };
  const [inv, arch, reviewer, caseworker] = ["investigator@demo.dalil", "archivist@demo.dalil", "reviewer@demo.dalil", "caseworker@demo.dalil"].map(who);
  if (!inv || !arch || !reviewer || !caseworker) return; // not the demo's archive: nothing to furnish
  say("running the queued work (renditions, the card reader's proposals) before the demo is furnished");
  await a.jobs.work({ once: true });

  if ((await readBodies(a, inv, { limit: 1 })).items.length === 0) {
    const proposals = [];
    for (const s of await listSources(a, inv)) proposals.push(...(await listProposals(a, inv, { sourceId: s.id, status: "proposed", limit: 500 })).items);
    const accept = proposals.slice(0, Math.max(0, proposals.length - 2)).map((p) => p.id);
    if (accept.length) {
      await acceptProposals(a, inv, { proposalIds: accept });
      say(`the investigator accepted ${accept.length} grouping proposals (${proposals.length - accept.length} left to decide)`);
    }
  }
  const bodies = (await readBodies(a, inv, { limit: 50 })).items;
  if (bodies.length === 0) return;

  // The archivist checks the numbers of every other body (the others wait on the home page).
  const details = await Promise.all(bodies.slice(0, 8).map((b) => getBody(a, arch, b.id)));
  if (!details.some((d) => d.numbers.some((n) => n.checkedBy))) {
    let checked = 0;
    for (const d of details.filter((_, i) => i % 2 === 0)) {
      for (const n of d.numbers.filter((n) => !n.retired && !n.checkedBy && n.enteredBy !== arch.id)) {
        await checkNumber(a, arch, { numberId: n.id, agree: true });
        checked++;
      }
    }
    say(`the archivist checked ${checked} numbers`);
  }

  if ((await myAssignments(a, reviewer)).length === 0) {
    const sample = await drawReviewSample(a, inv, { size: Math.min(4, bodies.length), seed: "demo", doubleShare: 0 });
    await assignSample(a, inv, { sampleId: sample.id, reviewers: [reviewer.id] });
    const open = await myAssignments(a, reviewer, { open: true });
    for (const [i, x] of open.slice(0, 2).entries()) {
      await submitReview(a, reviewer, { assignmentId: x.id, findings: [{ code: i === 0 ? "blunt_force" : "emaciation", confidence: "probable" }] });
    }
    say(`the reviewer has ${open.length} reviews, ${Math.min(2, open.length)} submitted`);
  }

  // Reading the reports is itself logged (personal data): whether they were filed is a setting, not a read.
  if ((await getSetting(a.db.db, DEMO_REPORTS_FILED)) === null) {
    for (const [i, d] of DEMO_DESCRIPTIONS.entries()) if (bodies[i]) await editBody(a, inv, { id: bodies[i]!.id, ...d });
    for (const r of DEMO_REPORTS) await createReport(a, caseworker, r);
    await setSetting(a.db.db, DEMO_REPORTS_FILED, String(DEMO_REPORTS.length));
    await a.jobs.work({ once: true }); // the re-ranking each report queued: candidates before the first sign-in
    say(`the caseworker filed ${DEMO_REPORTS.length} families' reports, ranked against the bodies`);
  }

  if ((await listDossiers(a, inv)).length === 0) {
    const d = await createDossier(a, inv, { name: DEMO_DOSSIER, description: "A demonstration dossier made by `npm start` from the synthetic card." });
    for (const b of bodies.slice(0, 2)) await addExhibit(a, inv, { dossierId: d.id, kind: "body", ref: b.ref, reasoning: "Photographed on the demo card with a branch 215 number card." });
    await freezeDossier(a, inv, { id: d.id, note: "demo" });
    await enqueueDossierPackage(a, arch, { dossierId: d.id, version: 1, recipient: "Office of the prosecutor (demo)", clearance: "redacted", purpose: "Demonstration of a handover", report: false });
    await a.jobs.work({ once: true });
    say(`the investigator made the dossier "${DEMO_DOSSIER}"; the archivist built its package`);
  }
}
