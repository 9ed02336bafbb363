/**
 * The sentences of the findings, in English and Arabic, filled with the finding's parameters ({name}). The CLI
 * and the dossier annex word them here; the web app has the same keys in web/src/i18n/areas/authenticity.*.json
 * (a test keeps the two in step). A finding stores only its key and parameters, so the words can be improved
 * without re-running an analysis.
 */
export type Lang = "en" | "ar";

export const MESSAGES = {
  notJpeg: { en: "The file is not a JPEG: it does not start with the SOI marker.", ar: "الملف ليس JPEG: لا يبدأ بعلامة البداية SOI." },
  truncatedSegment: {
    en: "The {marker} segment at byte {offset} declares {declared} bytes but only {available} remain: the file is cut short or crafted.",
    ar: "مقطع {marker} عند البايت {offset} يعلن طولًا قدره {declared} بايت ولم يبقَ من الملف إلا {available} بايت: الملف مقطوع أو مصنوع عمدًا.",
  },
  badSegmentLength: {
    en: "The {marker} segment at byte {offset} declares an impossible length ({declared}); reading stopped there.",
    ar: "مقطع {marker} عند البايت {offset} يعلن طولًا مستحيلًا ({declared})؛ توقفت القراءة عنده.",
  },
  badTable: { en: "The {marker} segment at byte {offset} is malformed.", ar: "مقطع {marker} عند البايت {offset} تالف البنية." },
  strayBytes: { en: "Bytes that belong to no segment lie at byte {offset} ({bytes} of them).", ar: "عند البايت {offset} بايتات لا تنتمي إلى أي مقطع (عددها {bytes})." },
  noEoi: { en: "The file ends without the end-of-image marker (EOI): it was cut short.", ar: "ينتهي الملف دون علامة نهاية الصورة (EOI): إنه مقطوع." },
  noFrame: { en: "The file has no frame header (SOF): no image can be decoded from it.", ar: "لا يحوي الملف ترويسة إطار (SOF): لا يمكن فك أي صورة منه." },
  tooManySegments: { en: "The file declares more segments than the limit ({limit}); reading stopped.", ar: "يتجاوز عدد مقاطع الملف الحدّ ({limit})؛ توقفت القراءة." },
  trailingBytes: {
    en: "Bytes follow the end of the image ({bytes} of them); cameras write none. {what}",
    ar: "تلي نهايةَ الصورة بايتات (عددها {bytes})، والكاميرات لا تكتب شيئًا بعدها. {what}",
  },
  trailingJpeg: { en: "They begin another JPEG image.", ar: "وهي تبدأ صورة JPEG أخرى." },
  trailingOther: { en: "What they hold is not recognised.", ar: "لم يُعرف ما تحويه." },
  editorSoftware: {
    en: "The Software tag names editing software: “{software}”. The photo was saved by it after the camera.",
    ar: "وسم Software يسمّي برنامج تحرير: «{software}». حُفظت الصورة به بعد الكاميرا.",
  },
  xmpTraces: {
    en: "The XMP metadata holds editing traces ({traces}), which a camera does not write.",
    ar: "بيانات XMP تحمل آثار تحرير ({traces})، والكاميرا لا تكتبها.",
  },
  photoshopBlock: {
    en: "The file carries a Photoshop resource block (APP13, resources: {count}); cameras do not write one.",
    ar: "يحمل الملف كتلة موارد فوتوشوب (APP13، عدد الموارد: {count})؛ والكاميرات لا تكتبها.",
  },
  signatureOutlier: {
    en: "Its header signature ({signature}) differs from the one the other photos of camera {camera} share ({usual}, photos: {others}): {parts} differ.",
    ar: "توقيع ترويستها ({signature}) يختلف عن التوقيع المشترك بين الصور الأخرى من الكاميرا {camera} ({usual}، عددها {others}): يختلف {parts}.",
  },
  editorTables: {
    en: "Its quantisation tables are exactly libjpeg's at quality {quality} with optimised Huffman tables — what editors and image libraries write — while camera {camera} otherwise writes other tables.",
    ar: "جداول التكميم فيها هي جداول libjpeg نفسها بجودة {quality} مع جداول هوفمان محسّنة — وهذا ما تكتبه برامج التحرير ومكتبات الصور — في حين تكتب الكاميرا {camera} جداول أخرى.",
  },
  cameraIjgTables: {
    en: "All photos of camera {camera} (photos: {count}) use libjpeg's tables at quality {quality}; some cameras do, and so do editors: the tables alone neither clear nor accuse these photos.",
    ar: "تستعمل صور الكاميرا {camera} كلها (عددها {count}) جداول libjpeg بجودة {quality}؛ بعض الكاميرات تفعل ذلك وكذلك برامج التحرير: الجداول وحدها لا تبرّئ هذه الصور ولا تتّهمها.",
  },
  noExif: {
    en: "The photo has no EXIF metadata, while other photos of the card have it ({others}): it was saved by something other than the camera.",
    ar: "لا تحوي الصورة بيانات EXIF، في حين تحويها صور أخرى من البطاقة (عددها {others}): حُفظت بغير الكاميرا.",
  },
  makerNoteMissing: {
    en: "The maker note is missing, while other photos of camera {camera} have one ({others}): editors often drop it.",
    ar: "ملاحظة الصانع مفقودة، في حين تحملها صور أخرى من الكاميرا {camera} (عددها {others}): كثيرًا ما تُسقطها برامج التحرير.",
  },
  makerNoteUnreadable: { en: "The maker note points outside the EXIF block and cannot be read.", ar: "ملاحظة الصانع تشير إلى خارج كتلة EXIF ولا يمكن قراءتها." },
  exifFaults: { en: "The EXIF block is damaged: {faults}.", ar: "كتلة EXIF تالفة: {faults}." },
  thumbnailMissing: {
    en: "The embedded thumbnail is missing, while other photos of camera {camera} have one ({others}).",
    ar: "الصورة المصغّرة المضمّنة مفقودة، في حين تحملها صور أخرى من الكاميرا {camera} (عددها {others}).",
  },
  thumbnailDiffers: {
    en: "The embedded thumbnail shows a different picture from the image (perceptual distance {distance} of 64; the same picture scores at most {limit}): the image was changed and its old thumbnail kept, or the thumbnail was replaced.",
    ar: "الصورة المصغّرة المضمّنة تُظهر صورة مختلفة عن الصورة نفسها (المسافة الإدراكية {distance} من 64؛ والصورة ذاتها لا تتجاوز {limit}): غُيّرت الصورة وبقيت مصغّرتها القديمة، أو استُبدلت المصغّرة.",
  },
  thumbnailUnreadable: { en: "The embedded thumbnail cannot be decoded.", ar: "تعذّر فك الصورة المصغّرة المضمّنة." },
  modifiedAfterCapture: {
    en: "The modification time ({modified}) differs from the capture time ({captured}).",
    ar: "وقت التعديل ({modified}) يختلف عن وقت الالتقاط ({captured}).",
  },
  modifiedByEditor: {
    en: "The modification time ({modified}) differs from the capture time ({captured}) and the file was saved by “{software}”.",
    ar: "وقت التعديل ({modified}) يختلف عن وقت الالتقاط ({captured})، وقد حُفظ الملف بـ«{software}».",
  },
  timeBackwards: {
    en: "Captured at {captured}, out of order with {previous} ({previousTime}) next to it in camera {camera}'s numbering (seconds apart: {seconds}): the clock was changed or the time was altered.",
    ar: "التُقطت في {captured}، خارج الترتيب مع {previous} ({previousTime}) المجاورة لها في ترقيم الكاميرا {camera} (الفارق بالثواني: {seconds}): غُيّرت الساعة أو عُدّل الوقت.",
  },
  numberRepeated: {
    en: "Camera {camera} has two photos numbered {number}.",
    ar: "للكاميرا {camera} صورتان تحملان الرقم {number}.",
  },
  numberGap: {
    en: "Camera {camera} skips file numbers {from} to {to}: deleted on the camera or missing from the card.",
    ar: "تتخطى الكاميرا {camera} أرقام الملفات من {from} إلى {to}: حُذفت في الكاميرا أو غابت عن البطاقة.",
  },
  dimensionsUnusual: {
    en: "Its size ({size}) is unlike the other photos of camera {camera} ({usual}, photos: {others}).",
    ar: "قياسها ({size}) لا يشبه الصور الأخرى من الكاميرا {camera} ({usual}، عددها {others}).",
  },
  exifSizeMismatch: {
    en: "EXIF says {exif} pixels but the image is {image}: the image was resized or cropped after the camera.",
    ar: "تقول EXIF إن الصورة {exif} بكسل لكنها {image}: غُيّر قياس الصورة أو قُصّت بعد الكاميرا.",
  },
  doubleCompression: {
    en: "Re-saving it shows a second minimum of error at quality {earlier} below its own quality {quality} (a “JPEG ghost”, depth {depth}): it was saved as JPEG at least twice.",
    ar: "إعادة حفظها تُظهر حدًّا أدنى ثانيًا للخطأ عند الجودة {earlier} تحت جودتها {quality} («شبح JPEG»، عمقه {depth}): حُفظت بصيغة JPEG مرتين على الأقل.",
  },
  nearDuplicate: {
    en: "Nearly the same picture as {other} (perceptual distance {distance} of 64).",
    ar: "تكاد تكون الصورة نفسها مثل {other} (المسافة الإدراكية {distance} من 64).",
  },
  cameraCount: {
    en: "Cameras: {cameras}; header signatures: {signatures}; photos: {photos}.",
    ar: "الكاميرات: {cameras}؛ تواقيع الترويسات: {signatures}؛ الصور: {photos}.",
  },
  nothingFound: {
    en: "No check found anything above information: structure, signature, sequence and thumbnail agree with the camera.",
    ar: "لم يجد أي فحص ما يتجاوز مستوى المعلومة: البنية والتوقيع والتسلسل والمصغّرة تتّفق مع الكاميرا.",
  },
} as const satisfies Record<string, { en: string; ar: string }>;

export type MessageKey = keyof typeof MESSAGES;
export type Params = Record<string, string | number>;

const ARABIC_DIGITS = "٠١٢٣٤٥٦٧٨٩";

/** The sentence in `lang`, parameters filled in; numbers in Arabic-Indic digits for Arabic. Identifiers keep Latin digits. */
export function wordFinding(key: MessageKey, params: Params, lang: Lang): string {
  const template = MESSAGES[key][lang];
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) return `{${name}}`;
    if (typeof v === "number" && lang === "ar") return String(v).replace(/[0-9]/g, (d) => ARABIC_DIGITS[Number(d)]!);
    // {what} carries another message's key: a sentence inside the sentence.
    if (name === "what" && typeof v === "string" && v in MESSAGES) return wordFinding(v as MessageKey, params, lang);
    return String(v);
  });
}
