import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/**
 * Families: a caseworker's reports, candidates, decisions and staged disclosures; a family member's portal.
 * Caseworker screens need "disclosure.make", which no family member holds; the portal answers only family
 * members (caseworkers hold its action too, so it is limited by role).
 */
const CASEWORK = ["report.read", "disclosure.make"] as const;

export const screens: ScreenDef[] = [
  { id: "family-reports", path: "/families/reports", title: "families.reports.title", group: "families", menu: 40, requires: CASEWORK, component: lazyScreen(() => import("./ReportsList.tsx"), "ReportsList") },
  { id: "family-new-report", path: "/families/reports/new", title: "families.form.title", requires: [...CASEWORK, "report.file"], component: lazyScreen(() => import("./NewReport.tsx"), "NewReport") },
  { id: "family-import", path: "/families/import", title: "families.import.title", requires: [...CASEWORK, "report.import"], component: lazyScreen(() => import("./ImportReports.tsx"), "ImportReports") },
  { id: "family-report", path: "/families/reports/:id", title: "families.report.title", requires: [...CASEWORK, "family.candidates"], component: lazyScreen(() => import("./ReportPage.tsx"), "ReportPage") },
  { id: "family-flags", path: "/families/flags", title: "families.flags.title", group: "families", menu: 41, requires: CASEWORK, component: lazyScreen(() => import("./Flags.tsx"), "Flags") },
  { id: "family-duplicates", path: "/families/duplicates", title: "families.duplicates.title", group: "families", menu: 42, requires: [...CASEWORK, "family.match", "report.edit"], component: lazyScreen(() => import("./Duplicates.tsx"), "Duplicates") },
  { id: "family-proposals", path: "/families/proposals", title: "families.proposals.title", group: "families", menu: 43, requires: [...CASEWORK, "family.match", "report.edit"], component: lazyScreen(() => import("./Proposals.tsx"), "Proposals") },
  { id: "portal-new", path: "/portal/new", title: "families.portalForm.form.title", requires: ["disclosure.read", "report.file"], roles: ["family_member"], component: lazyScreen(() => import("./NewReport.tsx"), "PortalNewReport") },
  { id: "portal", path: "/portal", title: "families.portal.title", group: "families", menu: 5, requires: ["disclosure.read"], roles: ["family_member"], component: lazyScreen(() => import("./PortalList.tsx"), "PortalList") },
  { id: "portal-report", path: "/portal/reports/:id", title: "families.portal.reportTitle", requires: ["disclosure.read"], roles: ["family_member"], component: lazyScreen(() => import("./PortalReport.tsx"), "PortalReportPage") },
];
