import type { Rng } from "./prng.ts";
import type { DigitForm } from "./truth.ts";

/**
 * Synthetic post-mortem records: the numbers written on each body's card and the demographic facts a
 * family-matching test needs. All invented; branch and hospital names are the public ones of DOMAIN.md.
 */
export interface BodyRecord {
  ref: string;
  detaineeNo: string;
  branchNo: string;
  examinerNo: string;
  digits: DigitForm;
  hospital: string;
  sex: "male" | "female";
  ageMin: number;
  ageMax: number;
  marks: string[];
}

export const BRANCHES: readonly (readonly [string, number])[] = [
  ["215", 30],
  ["227", 20],
  ["235", 16],
  ["248", 12],
  ["251", 10],
  ["216", 4],
  ["220", 3],
  ["290", 3],
  ["291", 2],
];

interface Hospital {
  name: string;
  weight: number;
  /** The letter this hospital's examiners add after their number, or none. */
  examinerLetter: string | null;
}

export const HOSPITALS: readonly Hospital[] = [
  { name: "Military Hospital 601", weight: 65, examinerLetter: null },
  { name: "Tishreen Military Hospital", weight: 30, examinerLetter: "ب" },
  { name: "Harasta Military Hospital", weight: 5, examinerLetter: "ح" },
];

const MARKS = [
  "scar left forearm",
  "scar right eyebrow",
  "surgical scar lower right abdomen",
  "tattoo right upper arm (anchor)",
  "tattoo left hand (three dots)",
  "mole left cheek",
  "birthmark back of neck",
  "missing upper front tooth",
  "gold crown lower left molar",
  "old healed fracture right little finger",
  "pierced left ear",
];

/** Draws bodies one after another; examiner numbers rise through each hospital's register. */
export class BodyFactory {
  private readonly used = new Set<string>();
  private readonly examinerNext = new Map<string, number>();

  constructor(private readonly rng: Rng) {
    for (const h of HOSPITALS) this.examinerNext.set(h.name, rng.int(1000, 4000));
  }

  pickHospital(): string {
    return this.rng.weighted(HOSPITALS.map((h) => [h.name, h.weight] as const));
  }

  make(index: number, total: number, hospitalName: string): BodyRecord {
    const r = this.rng;
    let detaineeNo: string;
    do {
      detaineeNo = String(r.chance(0.4) ? r.int(1000, 9999) : r.int(10000, 99999));
    } while (this.used.has(detaineeNo));
    this.used.add(detaineeNo);

    const hospital = HOSPITALS.find((h) => h.name === hospitalName) ?? (HOSPITALS[0] as Hospital);
    const n = this.examinerNext.get(hospital.name) ?? 1000;
    this.examinerNext.set(hospital.name, n + r.int(1, 3));
    const examinerNo = hospital.examinerLetter ? `${n}/${hospital.examinerLetter}` : String(n);

    const ageMin = 5 * r.int(3, 11);
    const ageMax = ageMin + r.pick([5, 10, 10, 15]);
    const marks: string[] = [];
    const nMarks = r.weighted([
      [0, 50],
      [1, 35],
      [2, 15],
    ] as const);
    while (marks.length < nMarks) {
      const m = r.pick(MARKS);
      if (!marks.includes(m)) marks.push(m);
    }
    const width = Math.max(5, String(total).length);
    return {
      ref: `body-${String(index + 1).padStart(width, "0")}`,
      detaineeNo,
      branchNo: r.weighted(BRANCHES),
      examinerNo,
      digits: r.chance(1 / 3) ? "arabic-indic" : "latin",
      hospital: hospital.name,
      sex: r.chance(0.97) ? "male" : "female",
      ageMin,
      ageMax,
      marks,
    };
  }
}

/** Photos per body: 3 to 8, mean about 5. */
export function photosPerBody(rng: Rng): number {
  return rng.weighted([
    [3, 12],
    [4, 25],
    [5, 28],
    [6, 18],
    [7, 11],
    [8, 6],
  ] as const);
}
