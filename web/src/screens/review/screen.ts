import type { ScreenDef } from "../../app/screens.ts";
import "./review.css";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** Forensic review: the reviewer's queue and review form, samples, disagreements, agreement statistics. */
export const screens: ScreenDef[] = [
  { id: "review-queue", path: "/review", title: "review.queueTitle", group: "review", menu: 40, requires: ["review.submit"], component: lazyScreen(() => import("./Queue.tsx"), "Queue") },
  { id: "review-assignment", path: "/review/assignment/:id", title: "review.reviewTitle", requires: ["review.submit"], component: lazyScreen(() => import("./ReviewBody.tsx"), "ReviewBody") },
  { id: "review-samples", path: "/review/samples", title: "review.samplesTitle", group: "review", menu: 42, requires: ["review.sample"], component: lazyScreen(() => import("./Samples.tsx"), "Samples") },
  { id: "review-sample", path: "/review/samples/:id", title: "review.sampleTitle", requires: ["review.read"], component: lazyScreen(() => import("./Samples.tsx"), "SampleDetailScreen") },
  { id: "review-disagreements", path: "/review/disagreements", title: "review.disagreementsTitle", group: "review", menu: 44, requires: ["review.resolve"], component: lazyScreen(() => import("./Disagreements.tsx"), "Disagreements") },
  { id: "review-stats", path: "/review/stats", title: "review.statsTitle", group: "review", menu: 46, requires: ["review.stats"], component: lazyScreen(() => import("./Stats.tsx"), "Stats") },
];
