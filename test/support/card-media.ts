import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CardEntry, CardMedium } from "../../src/archive/media/sources.ts";

/** What the card-reader tests share: listing a medium, reading an entry whole, hashing, a scratch folder. */
export function sha(b: Buffer): string {
  return createHash("sha256").update(b).digest("hex");
}

export async function list(m: CardMedium): Promise<CardEntry[]> {
  const out: CardEntry[] = [];
  for await (const e of m.entries()) out.push(e);
  return out;
}

export async function readAll(e: CardEntry): Promise<Buffer> {
  assert.ok(e.open, `${e.path} should be readable, refused: ${e.refused}`);
  const parts: Buffer[] = [];
  for await (const c of await e.open()) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Runs `fn` in a fresh temporary folder, removed afterwards whatever happens. */
export async function inWorkdir(prefix: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
