/**
 * The controlled vocabularies the archive starts with (DOMAIN.md, "Controlled vocabularies"), bilingual.
 * Inserted by migration 0003-catalogue, beside which it lives so that the database layer needs no module;
 * administrators extend them afterwards (catalogue/vocabularies.ts, which reads the names from here). Later
 * additions to this list must come with a new migration: an existing archive never re-reads this file.
 *
 * Only facts from public reporting are seeded: branch numbers and names as reported in the press, the
 * hospitals named by witnesses, Syria's governorates with their ISO 3166-2 codes, and a finding taxonomy in the
 * style of the Istanbul Protocol. Aliases (`extra.aliases`) are the other spellings a spreadsheet may use.
 */
export interface SeedTerm {
  code: string;
  ar: string;
  en: string;
  parent?: string;
  extra?: Record<string, unknown>;
}

export const VOCABULARY_NAMES = [
  "branch",
  "hospital",
  "governorate",
  "finding",
  "mark_type",
  "body_region",
  "link_type",
  "photo_role",
] as const;
export type VocabularyName = (typeof VOCABULARY_NAMES)[number];

export const SEED: Record<VocabularyName, SeedTerm[]> = {
  // Agencies first (extra.level "agency"), then their branches and facilities.
  branch: [
    { code: "mi", ar: "شعبة المخابرات العسكرية", en: "Military Intelligence", extra: { level: "agency", aliases: ["الأمن العسكري", "Military Security"] } },
    { code: "gi", ar: "إدارة المخابرات العامة", en: "General Intelligence", extra: { level: "agency", aliases: ["أمن الدولة", "State Security"] } },
    { code: "afi", ar: "إدارة المخابرات الجوية", en: "Air Force Intelligence", extra: { level: "agency", aliases: ["المخابرات الجوية", "Air Force Intelligence Directorate"] } },
    { code: "mp", ar: "الشرطة العسكرية", en: "Military Police", extra: { level: "agency" } },
    { code: "215", ar: "فرع المداهمة (215)", en: "Branch 215 (Raids / Mudāhama)", parent: "mi", extra: { level: "branch", aliases: ["فرع المداهمة", "Raids Branch", "Mudahama"] } },
    { code: "227", ar: "فرع المنطقة (227)", en: "Branch 227 (Damascus Regional)", parent: "mi", extra: { level: "branch", aliases: ["فرع المنطقة", "Damascus Regional Branch"] } },
    { code: "235", ar: "فرع فلسطين (235)", en: "Branch 235 (Palestine Branch)", parent: "mi", extra: { level: "branch", aliases: ["فرع فلسطين", "Palestine Branch"] } },
    { code: "248", ar: "فرع التحقيق العسكري (248)", en: "Branch 248 (Military Investigations)", parent: "mi", extra: { level: "branch", aliases: ["فرع التحقيق العسكري", "Military Investigations Branch"] } },
    { code: "251", ar: "فرع الخطيب (251)", en: "Branch 251 (al-Khatib)", parent: "gi", extra: { level: "branch", aliases: ["فرع الخطيب", "al-Khatib Branch", "Khatib"] } },
    { code: "afi-branches", ar: "فروع المخابرات الجوية", en: "Air Force Intelligence branches", parent: "afi", extra: { level: "branch" } },
    { code: "saydnaya", ar: "سجن صيدنايا العسكري", en: "Saydnaya Military Prison", parent: "mp", extra: { level: "prison", aliases: ["صيدنايا", "Sednaya", "Saydnaya"] } },
  ],
  hospital: [
    { code: "601", ar: "مشفى المزة العسكري (601)", en: "Military Hospital 601 (Mezzeh)", extra: { aliases: ["Military Hospital 601", "Hospital 601", "مشفى 601", "المشفى 601", "Mezzeh Military Hospital", "مشفى المزة"] } },
    { code: "tishreen", ar: "مشفى تشرين العسكري", en: "Tishreen Military Hospital", extra: { aliases: ["Tishreen", "تشرين", "مشفى تشرين", "Tishrin"] } },
    { code: "harasta", ar: "مشفى حرستا العسكري", en: "Harasta Military Hospital", extra: { aliases: ["Harasta", "حرستا", "مشفى حرستا"] } },
  ],
  governorate: [
    { code: "SY-DI", ar: "دمشق", en: "Damascus" },
    { code: "SY-RD", ar: "ريف دمشق", en: "Rif Dimashq" },
    { code: "SY-HL", ar: "حلب", en: "Aleppo" },
    { code: "SY-HI", ar: "حمص", en: "Homs" },
    { code: "SY-HM", ar: "حماة", en: "Hama" },
    { code: "SY-LA", ar: "اللاذقية", en: "Latakia" },
    { code: "SY-TA", ar: "طرطوس", en: "Tartus" },
    { code: "SY-ID", ar: "إدلب", en: "Idlib" },
    { code: "SY-DR", ar: "درعا", en: "Daraa" },
    { code: "SY-SU", ar: "السويداء", en: "As-Suwayda" },
    { code: "SY-QU", ar: "القنيطرة", en: "Quneitra" },
    { code: "SY-DY", ar: "دير الزور", en: "Deir ez-Zor" },
    { code: "SY-RA", ar: "الرقة", en: "Raqqa" },
    { code: "SY-HA", ar: "الحسكة", en: "Al-Hasakah" },
  ],
  finding: [
    { code: "blunt_force", ar: "إصابات رضّية (أداة راضّة)", en: "Blunt-force trauma" },
    { code: "patterned_injury", ar: "إصابات ذات نمط", en: "Patterned injuries" },
    { code: "burn", ar: "حروق", en: "Burns" },
    { code: "burn_thermal", ar: "حروق حرارية", en: "Thermal burns", parent: "burn" },
    { code: "burn_cigarette", ar: "حروق سجائر", en: "Cigarette burns", parent: "burn" },
    { code: "burn_electrical", ar: "حروق كهربائية", en: "Electrical burns", parent: "burn" },
    { code: "ligature", ar: "آثار خنق أو رباط", en: "Ligature / strangulation marks" },
    { code: "restraint_marks", ar: "آثار تقييد", en: "Restraint marks" },
    { code: "eye_injury", ar: "إصابات العين أو اقتلاعها", en: "Eye injuries / enucleation" },
    { code: "emaciation", ar: "هزال شديد (تجويع)", en: "Emaciation" },
    { code: "untreated_wound", ar: "جروح غير معالجة أو ملتهبة", en: "Untreated / infected wounds" },
    { code: "gunshot", ar: "إصابات بطلق ناري", en: "Gunshot wounds" },
    { code: "fracture", ar: "كسور", en: "Fractures" },
    { code: "mutilation", ar: "تشويه أو بتر", en: "Mutilation" },
    { code: "dental_injury", ar: "إصابات الأسنان", en: "Dental injuries" },
    { code: "no_visible_injury", ar: "لا إصابات ظاهرة", en: "No visible injury" },
  ],
  mark_type: [
    { code: "scar", ar: "ندبة", en: "Scar", extra: { words: ["scar", "ندبه", "ندب", "اثر جرح"] } },
    { code: "tattoo", ar: "وشم", en: "Tattoo", extra: { words: ["tattoo", "وشم"] } },
    { code: "mole", ar: "شامة", en: "Mole", extra: { words: ["mole", "شامه", "خال"] } },
    { code: "birthmark", ar: "وحمة", en: "Birthmark", extra: { words: ["birthmark", "وحمه"] } },
    { code: "missing_tooth", ar: "سن مفقودة", en: "Missing tooth", extra: { words: ["missing", "مفقود", "مفقوده"] } },
    { code: "dental_work", ar: "عمل سني (تاج، حشوة)", en: "Dental work (crown, filling)", extra: { words: ["crown", "filling", "تاج", "حشوه"] } },
    { code: "old_fracture", ar: "كسر قديم ملتئم", en: "Old healed fracture", extra: { words: ["fracture", "كسر"] } },
    { code: "piercing", ar: "ثقب", en: "Piercing", extra: { words: ["pierced", "piercing", "ثقب", "مثقوب", "مثقوبه"] } },
    { code: "other", ar: "أخرى", en: "Other" },
  ],
  body_region: [
    { code: "head", ar: "الرأس", en: "Head" },
    { code: "face", ar: "الوجه", en: "Face", extra: { words: ["face", "cheek", "eyebrow", "forehead", "chin", "وجه", "خد", "حاجب", "جبين", "ذقن"] } },
    { code: "neck", ar: "العنق", en: "Neck", extra: { words: ["neck", "عنق", "رقبه"] } },
    { code: "chest", ar: "الصدر", en: "Chest", extra: { words: ["chest", "صدر"] } },
    { code: "abdomen", ar: "البطن", en: "Abdomen", extra: { words: ["abdomen", "belly", "بطن"] } },
    { code: "back", ar: "الظهر", en: "Back", extra: { words: ["back", "ظهر"] } },
    { code: "arm_left", ar: "الذراع اليسرى", en: "Left arm", extra: { side: "left", words: ["arm", "forearm", "ذراع", "ساعد"] } },
    { code: "arm_right", ar: "الذراع اليمنى", en: "Right arm", extra: { side: "right", words: ["arm", "forearm", "ذراع", "ساعد"] } },
    { code: "hand_left", ar: "اليد اليسرى", en: "Left hand", extra: { side: "left", words: ["hand", "finger", "يد", "اصبع"] } },
    { code: "hand_right", ar: "اليد اليمنى", en: "Right hand", extra: { side: "right", words: ["hand", "finger", "يد", "اصبع"] } },
    { code: "leg_left", ar: "الساق اليسرى", en: "Left leg", extra: { side: "left", words: ["leg", "thigh", "knee", "ساق", "فخذ", "ركبه"] } },
    { code: "leg_right", ar: "الساق اليمنى", en: "Right leg", extra: { side: "right", words: ["leg", "thigh", "knee", "ساق", "فخذ", "ركبه"] } },
    { code: "foot_left", ar: "القدم اليسرى", en: "Left foot", extra: { side: "left", words: ["foot", "toe", "قدم"] } },
    { code: "foot_right", ar: "القدم اليمنى", en: "Right foot", extra: { side: "right", words: ["foot", "toe", "قدم"] } },
    { code: "mouth", ar: "الفم والأسنان", en: "Mouth and teeth", extra: { words: ["tooth", "teeth", "molar", "mouth", "سن", "اسنان", "ضرس", "فم"] } },
    { code: "ear", ar: "الأذن", en: "Ear", extra: { words: ["ear", "اذن"] } },
    { code: "whole_body", ar: "الجسم كله", en: "Whole body" },
  ],
  link_type: [
    { code: "held_by", ar: "محتجز لدى", en: "held by", extra: { from: ["body"], to: ["unit", "facility"] } },
    { code: "examined_at", ar: "فُحص في", en: "examined at", extra: { from: ["body"], to: ["hospital", "facility"] } },
    { code: "died_at", ar: "توفي في", en: "died at", extra: { from: ["body"], to: ["facility", "unit", "hospital"] } },
    { code: "member_of", ar: "عضو في", en: "member of", extra: { from: ["person"], to: ["unit", "facility", "hospital"] } },
    { code: "commands", ar: "يقود", en: "commands", extra: { from: ["person"], to: ["unit", "facility", "hospital"] } },
    { code: "reports_to", ar: "يتبع لـ", en: "reports to", extra: { from: ["person", "unit"], to: ["person", "unit"] } },
    { code: "located_at", ar: "يقع في", en: "located at", extra: { from: ["unit", "hospital"], to: ["facility"] } },
    { code: "responsible_for", ar: "مسؤول عن", en: "responsible for", extra: { from: ["person", "unit"], to: ["body", "facility"] } },
    { code: "same_person_as", ar: "الشخص نفسه", en: "same person as", extra: { from: ["body"], to: ["body"] } },
    { code: "associated_with", ar: "مرتبط بـ", en: "associated with" },
  ],
  photo_role: [
    { code: "card", ar: "بطاقة الأرقام", en: "Number card" },
    { code: "face", ar: "الوجه", en: "Face" },
    { code: "full", ar: "الجسم كاملاً", en: "Full body" },
    { code: "detail", ar: "تفصيل", en: "Detail" },
    { code: "other", ar: "أخرى", en: "Other" },
  ],
};
