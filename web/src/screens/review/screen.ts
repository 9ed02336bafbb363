import type { ScreenDef } from "../../app/screens.ts";
import { Queue } from "./Queue.tsx";
import { ReviewBody } from "./ReviewBody.tsx";
import { SampleDetailScreen, Samples } from "./Samples.tsx";
import { Disagreements } from "./Disagreements.tsx";
import { Stats } from "./Stats.tsx";
import "./review.css";

/** Forensic review: the reviewer's queue and review form, samples, disagreements, agreement statistics. */
export const screens: ScreenDef[] = [
  { id: "review-queue", path: "/review", title: "review.queueTitle", group: "review", menu: 40, requires: ["review.submit"], component: Queue },
  { id: "review-assignment", path: "/review/assignment/:id", title: "review.reviewTitle", requires: ["review.submit"], component: ReviewBody },
  { id: "review-samples", path: "/review/samples", title: "review.samplesTitle", group: "review", menu: 42, requires: ["review.sample"], component: Samples },
  { id: "review-sample", path: "/review/samples/:id", title: "review.sampleTitle", requires: ["review.read"], component: SampleDetailScreen },
  { id: "review-disagreements", path: "/review/disagreements", title: "review.disagreementsTitle", group: "review", menu: 44, requires: ["review.resolve"], component: Disagreements },
  { id: "review-stats", path: "/review/stats", title: "review.statsTitle", group: "review", menu: 46, requires: ["review.stats"], component: Stats },
];
