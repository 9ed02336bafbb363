/**
 * Proposals that group a memory card's photos into bodies, for an investigator to accept, split or merge.
 *
 * A photographer works through bodies one at a time: a few shots seconds apart, then minutes until the next
 * body, and a paper card with the body's numbers in every shot. So the photos are walked in camera order
 * (folder, then file number) and each one either continues the current body or starts the next, by adding
 * up evidence in log-odds: the number read from the card (strongest: the same detainee number is the same
 * body, a different one is another body, unless it differs by one character and the time says the same
 * body, which is what an OCR misreading looks like), the time since the previous shot, and the examiner and
 * branch numbers. A retouched or resized copy made in the camera (a near duplicate: same capture time,
 * nearly the same perceptual hash) joins its original's group wherever it sits. Groups that end up with the
 * same detainee number are merged: one body, photographed twice. Every proposal says why, in words.
 */
import { hammingDistance } from "../archive/index.ts";
import { wallClockMs } from "../core/wall-clock.ts";
import type { CardNumbers, NumberRole } from "./card-numbers.ts";

export interface GroupingPhoto {
  sha256: string;
  /** Path on the card, e.g. DCIM/100NCD90/DSC_0001.JPG: gives the camera's sequence. */
  path: string;
  /** EXIF DateTimeOriginal as written, with its offset or without; compared on the camera's wall clock (wallClockMs). */
  captureTime?: string;
  /** Perceptual hash (16 hex digits, src/archive/media/phash.ts). */
  phash?: string;
  numbers?: CardNumbers;
}

export interface ProposedNumbers {
  detainee?: string;
  branch?: string;
  examiner?: string;
  /** Share of the photos with a reading whose detainee number is the group's (1 when none was read). */
  agreement: number;
}

export interface BodyProposal {
  /** sha256 of each photo, in camera order. */
  photos: string[];
  numbers: ProposedNumbers;
  reasons: string[];
  /** 0..1: how sure the grouping is that these photos, and only these, show one body. */
  confidence: number;
}

export interface GroupingOptions {
  /** Shots of one body are at most this far apart (seconds). Default 90. */
  sameBodySeconds?: number;
  /** Bodies are at least this far apart (seconds). Default 150. */
  newBodySeconds?: number;
  /** Perceptual hashes at most this many bits apart are copies of one photo. Default 10. */
  nearDuplicateBits?: number;
  /** How many photos back a copy's original is looked for. Default 40. */
  copyWindow?: number;
}

interface Item {
  photo: GroupingPhoto;
  index: number;
  folder: number;
  file: number;
  time: number;
  name: string;
  copyOf: Item | null;
  copyBits: number;
}

interface Group {
  items: Item[];
  /** Why this group begins where it does (relative to the previous group in camera order). */
  start: string[];
  startScore: number;
  /** Evidence weighed against a boundary inside the group that was overruled (misreadings). */
  notes: string[];
  merged: string[];
}

/** A reading's weight in a vote: unsure readings count less. */
function weight(n: CardNumbers | undefined, role: NumberRole): number {
  if (!n?.[role]) return 0;
  return Math.max(0.05, n.confidences?.[role] ?? n.confidence);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Camera order: DCF folder number, then file number; names without numbers sort by name after them. */
function sequenceKey(path: string): { folder: number; file: number } {
  const parts = path.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? "";
  const dir = parts[parts.length - 2] ?? "";
  const folder = /^(\d{3})/.exec(dir);
  const file = /(\d+)(?=\.[^.]*$)/.exec(name);
  return { folder: folder ? Number(folder[1]) : 1e9, file: file ? Number(file[1]) : 1e9 };
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The weighted majority reading of one role among items, with its share of the weight. */
function consensus(items: readonly Item[], role: NumberRole): { value: string; share: number; weight: number; readers: number } | null {
  const votes = new Map<string, number>();
  let total = 0;
  let readers = 0;
  for (const it of items) {
    const v = it.photo.numbers?.[role];
    if (!v) continue;
    const w = weight(it.photo.numbers, role);
    votes.set(v, (votes.get(v) ?? 0) + w);
    total += w;
    readers++;
  }
  let best: [string, number] | null = null;
  for (const e of votes) if (!best || e[1] > best[1]) best = e;
  return best ? { value: best[0], share: best[1] / total, weight: best[1], readers } : null;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "an unknown time";
  const s = Math.round(Math.abs(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min ${s % 60} s`;
  const h = Math.floor(s / 3600);
  return `${h} h ${Math.round((s - h * 3600) / 60)} min`;
}

const LABEL: Record<NumberRole, string> = { detainee: "detainee No.", branch: "branch", examiner: "examiner" };

/** Log-odds that `it` starts a new body after the group so far; with the reasons, in words. */
function boundaryEvidence(group: Group, prev: Item, it: Item, o: Required<GroupingOptions>): { score: number; reasons: string[]; overruled: string[] } {
  const reasons: string[] = [];
  const overruled: string[] = [];
  let score = 0;
  const gap = (it.time - prev.time) / 1000;
  let timeSays: "same" | "new" | "unsure" = "unsure";
  if (Number.isFinite(gap)) {
    if (gap < 0) {
      score += 1;
      reasons.push(`its capture time is ${duration(gap)} earlier than the previous photo's`);
    } else if (gap <= o.sameBodySeconds) {
      score -= 3;
      timeSays = "same";
      reasons.push(`taken ${duration(gap)} after the previous photo`);
    } else if (gap >= o.newBodySeconds) {
      score += 3;
      timeSays = "new";
      reasons.push(`taken ${duration(gap)} after the previous photo`);
    } else reasons.push(`taken ${duration(gap)} after the previous photo (between shots of one body and the next)`);
  } else reasons.push("no capture time to compare");

  const n = it.photo.numbers;
  const c = consensus(group.items, "detainee");
  const d = n?.detainee;
  if (d && c) {
    const sure = Math.min(weight(n, "detainee"), Math.min(1, c.weight));
    if (d === c.value) {
      score -= 6 * sure;
      reasons.push(`the card reads the same ${LABEL.detainee} ${d}`);
    } else if (editDistance(d, c.value) <= 1 && timeSays !== "new") {
      // One character off, and the clock does not say "next body": what a misreading looks like.
      score += 1;
      overruled.push(`${baseName(it.photo.path)} read ${LABEL.detainee} ${d}, one character from ${c.value}; taken ${duration(gap)} after the previous shot, so read as a misreading`);
    } else {
      score += 6 * sure;
      reasons.push(`the card reads another ${LABEL.detainee}: ${d} after ${c.value}`);
    }
  }
  for (const role of ["examiner", "branch"] as const) {
    const v = n?.[role];
    const cr = consensus(group.items, role);
    if (!v || !cr) continue;
    const sure = Math.min(weight(n, role), Math.min(1, cr.weight));
    // Examiner numbers rise by one to three from body to body, so a match means much, a mismatch less;
    // branches repeat across bodies, so a match means little.
    if (v === cr.value) score -= (role === "examiner" ? 2 : 0.3) * sure;
    else {
      score += (role === "examiner" ? 1.5 : 1) * sure;
      reasons.push(`another ${LABEL[role]} number: ${v} after ${cr.value}`);
    }
  }
  return { score, reasons, overruled };
}

/** Finds, for each photo, an earlier photo it is an in-camera copy of (same capture time, near hash). */
function linkCopies(items: Item[], o: Required<GroupingOptions>): void {
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (!it.photo.phash) continue;
    let best: Item | null = null;
    let bestBits = Infinity;
    for (let j = i - 1; j >= Math.max(0, i - o.copyWindow); j--) {
      const other = items[j]!;
      if (!other.photo.phash || other.copyOf) continue;
      const sameTime = Number.isFinite(it.time) && it.time === other.time;
      const bothTimed = Number.isFinite(it.time) && Number.isFinite(other.time);
      if (bothTimed && !sameTime) continue;
      const bits = hammingDistance(it.photo.phash, other.photo.phash);
      // Without times to agree, only a much closer hash will do.
      const limit = sameTime ? o.nearDuplicateBits : Math.floor(o.nearDuplicateBits / 2);
      if (bits <= limit && bits < bestBits) {
        best = other;
        bestBits = bits;
      }
    }
    if (best) {
      it.copyOf = best;
      it.copyBits = bestBits;
    }
  }
}

function timeRange(items: readonly Item[]): string {
  const times = items.map((i) => i.time).filter(Number.isFinite);
  if (times.length === 0) return "";
  const lo = new Date(Math.min(...times)).toISOString().slice(0, 19).replace("T", " ");
  const hi = new Date(Math.max(...times)).toISOString().slice(11, 19);
  return ` from ${lo} to ${hi} on the camera's clock`;
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}

/** Proposes how the photos group into bodies. Pure: same input, same proposals. */
export function proposeBodies(photos: readonly GroupingPhoto[], options: GroupingOptions = {}): { groups: BodyProposal[] } {
  const o: Required<GroupingOptions> = {
    sameBodySeconds: options.sameBodySeconds ?? 90,
    newBodySeconds: options.newBodySeconds ?? 150,
    nearDuplicateBits: options.nearDuplicateBits ?? 10,
    copyWindow: options.copyWindow ?? 40,
  };
  const items: Item[] = photos.map((photo, index) => {
    const k = sequenceKey(photo.path);
    const t = wallClockMs(photo.captureTime);
    return { photo, index, folder: k.folder, file: k.file, time: t, name: baseName(photo.path), copyOf: null, copyBits: 0 };
  });
  items.sort((a, b) => a.folder - b.folder || a.file - b.file || (a.photo.path < b.photo.path ? -1 : a.photo.path > b.photo.path ? 1 : 0));
  linkCopies(items, o);

  // Walk the originals in camera order; copies follow their originals afterwards.
  const groups: Group[] = [];
  const groupOf = new Map<Item, Group>();
  let prev: Item | null = null;
  for (const it of items) {
    if (it.copyOf) continue;
    const cur = groups[groups.length - 1];
    if (!cur || !prev) {
      const g: Group = { items: [it], start: ["the first photo on the card"], startScore: Infinity, notes: [], merged: [] };
      groups.push(g);
      groupOf.set(it, g);
      prev = it;
      continue;
    }
    const ev = boundaryEvidence(cur, prev, it, o);
    if (ev.score > 0) {
      const g: Group = { items: [it], start: ev.reasons, startScore: ev.score, notes: [], merged: [] };
      groups.push(g);
      groupOf.set(it, g);
    } else {
      cur.items.push(it);
      cur.notes.push(...ev.overruled);
      groupOf.set(it, cur);
    }
    prev = it;
  }

  // One detainee number, one body: groups that agree on it (read with some weight) are merged.
  const byNumber = new Map<string, Group>();
  const kept: Group[] = [];
  for (const g of groups) {
    const c = consensus(g.items, "detainee");
    const first = c && c.weight >= 0.5 && c.share >= 0.6 ? byNumber.get(c.value) : undefined;
    if (c && first) {
      const at = first.items[first.items.length - 1]!;
      first.merged.push(
        `${g.items.length} later photo${g.items.length === 1 ? "" : "s"} (${g.items[0]!.name}…) read the same ${LABEL.detainee} ${c.value}, ${duration((g.items[0]!.time - at.time) / 1000)} after this group's last photo: merged as one body`,
      );
      first.items.push(...g.items);
      first.notes.push(...g.notes);
      for (const it of g.items) groupOf.set(it, first);
      continue;
    }
    if (c && c.weight >= 0.5 && c.share >= 0.6) byNumber.set(c.value, g);
    kept.push(g);
  }

  const copies = new Map<Group, string[]>();
  for (const it of items) {
    if (!it.copyOf) continue;
    let root = it.copyOf;
    while (root.copyOf) root = root.copyOf;
    const g = groupOf.get(root)!;
    g.items.push(it);
    groupOf.set(it, g);
    const why = Number.isFinite(it.time) ? "same capture time" : "no capture time";
    copies.set(g, [...(copies.get(g) ?? []), `${it.name} is a copy of ${root.name} (perceptual hashes ${it.copyBits} bits apart, ${why})`]);
  }

  const out: BodyProposal[] = kept.map((g, k) => {
    g.items.sort((a, b) => a.folder - b.folder || a.file - b.file);
    const numbers: ProposedNumbers = { agreement: 1 };
    const reasons: string[] = [];
    const originals = g.items.filter((i) => !i.copyOf);
    reasons.push(`${originals.length} photo${originals.length === 1 ? "" : "s"} in camera order, ${originals[0]!.name} to ${originals[originals.length - 1]!.name}${timeRange(originals)}`);
    const gaps: number[] = [];
    for (let i = 1; i < originals.length; i++) {
      const s = (originals[i]!.time - originals[i - 1]!.time) / 1000;
      if (Number.isFinite(s)) gaps.push(s);
    }
    if (gaps.length > 0) reasons.push(`shots ${duration(Math.min(...gaps))} to ${duration(Math.max(...gaps))} apart`);
    const read: string[] = [];
    for (const role of ["detainee", "branch", "examiner"] as const) {
      const c = consensus(g.items, role);
      if (!c) continue;
      numbers[role] = c.value;
      if (role === "detainee") numbers.agreement = c.share;
      read.push(`${LABEL[role]} ${c.value} (${Math.round(c.share * 100)}% of ${c.readers} reading${c.readers === 1 ? "" : "s"})`);
    }
    const readers = g.items.filter((i) => i.photo.numbers?.detainee).length;
    if (read.length > 0) reasons.push(`card read on ${readers} of ${g.items.length} photos: ${read.join(", ")}`);
    else reasons.push("no number could be read from a card in these photos");
    if (k > 0) reasons.push(`starts a new body because ${g.start.join("; ")}`);
    reasons.push(...g.notes, ...(copies.get(g) ?? []), ...g.merged);
    // Sure when both ends are clear cut and the readings agree; each overruled reading costs a little.
    const startSure = k === 0 ? 1 : clamp01(g.startScore / 6);
    const next = kept[k + 1];
    const endSure = next ? clamp01(next.startScore / 6) : 1;
    const readSure = readers === 0 ? 0.6 : numbers.agreement;
    const confidence = clamp01(Math.min(startSure, endSure) * (0.5 + 0.5 * readSure) * Math.pow(0.95, g.notes.length));
    return { photos: g.items.map((i) => i.photo.sha256), numbers, reasons, confidence: Math.round(confidence * 1000) / 1000 };
  });
  return { groups: out };
}
