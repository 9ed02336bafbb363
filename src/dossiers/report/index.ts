import type { Ctx } from "../../app/context.ts";
import type { Actor } from "../../core/actor.ts";

/**
 * The dossier report: a PDF and the HTML it is printed from. A first version of the entry point, so callers can
 * be written against it while the report itself is built.
 */
export type Clearance = "original" | "redacted" | "blurred";
export type ReportLang = "ar" | "en";

export interface ReportExhibit {
  number: string;
  bodyId: string;
  /** sha256 of the photos to show; default all of the body's photos. */
  photos?: string[];
  reasoning?: string[];
}

export interface ReportInput {
  title: string;
  subtitle?: string;
  lang: ReportLang;
  clearance: Clearance;
  dossier?: { id: string; version: number };
  exhibits: ReportExhibit[];
  outDir: string;
  onProgress?: (done: number, total: number) => void;
}

export interface ReportResult {
  html: string;
  pdf: string;
  pages: number;
}

export async function buildReport(ctx: Ctx, actor: Actor, input: ReportInput): Promise<ReportResult> {
  void ctx;
  void actor;
  void input;
  throw new Error("buildReport: not yet implemented");
}
