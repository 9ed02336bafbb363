import type { MessageKey, Params } from "./messages.ts";
import type * as contracts from "./contracts.ts";

/**
 * A finding: one check's result on one photo (or on the card), with the numbers behind it.
 * - information: worth knowing, not a sign of change (a gap in file numbers, a camera using libjpeg tables);
 * - look: unusual for this camera; a person should look before relying on the photo;
 * - strong: the file shows that something other than the camera wrote or changed it.
 */
export type Severity = contracts.Severity;
export const SEVERITIES: readonly Severity[] = ["information", "look", "strong"];

export type Check = contracts.Check;

export interface Finding {
  /** The photo's SHA-256, or null for a finding about the card. */
  photo: string | null;
  check: Check;
  severity: Severity;
  key: MessageKey;
  params: Params;
}

export function finding(photo: string | null, check: Check, severity: Severity, key: MessageKey, params: Params = {}): Finding {
  return { photo, check, severity, key, params };
}

/** Deterministic order: by photo (card findings first), then severity (strongest first), check and key. */
export function sortFindings(f: Finding[]): Finding[] {
  const rank = (s: Severity) => 2 - SEVERITIES.indexOf(s);
  return [...f].sort(
    (a, b) =>
      (a.photo ?? "").localeCompare(b.photo ?? "") ||
      rank(a.severity) - rank(b.severity) ||
      a.check.localeCompare(b.check) ||
      a.key.localeCompare(b.key) ||
      JSON.stringify(a.params).localeCompare(JSON.stringify(b.params)),
  );
}
