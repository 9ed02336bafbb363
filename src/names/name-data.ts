/**
 * Small curated tables for Arabic names: titles to drop, particles that bind words into one name, and
 * common given names with their usual Latin spellings. The spelling table is what lets the matcher say
 * "Mahmoud is not محمد" although their consonant skeletons (m-h-m-d) are the same, and "Hassan is حسن or
 * حسان". It is deliberately small: names missing from it still match through the phonetic skeleton, only
 * with less certainty. Arabic forms are written in ordinary spelling and normalised when the index is built;
 * Latin spellings are lowercase and folded the same way (doubled letters, hyphens and spaces do not matter).
 *
 * Everything here is general knowledge of Arabic naming; no list of persons was used.
 */

/** Words before a name that are not part of it. Arabic forms are compared after normalisation. */
export const TITLES_AR: readonly string[] = [
  "الحاج", "حاج", "الحاجة", "حاجة", "الشيخ", "الشيخة", "الدكتور", "الدكتورة", "دكتور", "د", "الطبيب", "الطبيبة",
  "المهندس", "المهندسة", "مهندس", "م", "الأستاذ", "الأستاذة", "أستاذ", "السيد", "السيدة", "الآنسة", "المحامي",
  "المحامية", "المرحوم", "المرحومة", "الشهيد", "الشهيدة", "الفقيد", "الفقيدة", "المعتقل", "المعتقلة", "المغيب",
  "المغيبة", "المختفي", "المختفية", "الطالب", "الطالبة", "الملازم", "ملازم", "النقيب", "الرائد", "المقدم", "العقيد",
  "العميد", "اللواء", "العماد", "الرقيب", "العريف", "المجند", "الجندي", "المساعد", "أول", "اول", "الأول",
];

/** Latin titles, lowercase, without trailing dots. */
export const TITLES_LAT: readonly string[] = [
  "dr", "doctor", "hajj", "haj", "hadj", "hajji", "hadji", "hajja", "hajjeh", "al-hajj", "el-hajj", "alhajj", "elhajj",
  "alhaj", "sheikh", "shaikh", "shaykh", "sheik", "cheikh", "shaykha", "sheikha", "eng", "engr", "engineer", "mr", "mrs",
  "ms", "miss", "prof", "professor", "ustaz", "ustadh", "ustad", "martyr", "late", "the", "lt", "lieutenant", "1st",
  "first", "capt", "captain", "maj", "major", "col", "colonel", "brig", "brigadier", "gen", "general", "sgt",
  "sergeant", "cpl", "corporal", "pvt", "private", "student",
];

/** Words that bind to the following word: عبد الله → عبدالله, أبو زيد → أبوزيد, Abdul Rahman → Abdulrahman. */
export const PREFIX_PARTICLES_AR: readonly string[] = ["عبد", "أبو", "ابو", "أم", "ام", "ذو"];
export const PREFIX_PARTICLES_LAT: readonly string[] = [
  "abd", "abdul", "abdel", "abdal", "abdil", "abdoul", "abed", "abu", "abou", "abo", "umm", "um", "oum",
];

/** Words that bind to the preceding word: نور الدين → نورالدين, نصر الله → نصرالله. */
export const SUFFIX_PARTICLES_AR: readonly string[] = ["الدين", "الله", "الهدى", "الحق", "الإسلام", "العابدين"];
export const SUFFIX_PARTICLES_LAT: readonly string[] = [
  "din", "deen", "dine", "eddin", "eddine", "eddeen", "edin", "edine", "uddin", "uddeen", "udin", "addin", "adin",
  "aldin", "eldin", "uldin", "allah", "ullah", "alla", "ulla", "illah", "ollah", "abidin", "abideen", "alabidin",
  "elabidin", "ulabidin",
];

/** Latin articles written as a separate word ("Nour al Din", "Abd el Kader"); they bind to the next word. */
export const ARTICLES_LAT: readonly string[] = ["al", "el", "ul", "il", "ad", "ed", "ud", "ar", "er", "ur", "as", "es", "us", "az", "ez", "an", "en", "at", "et", "ash", "esh"];

/** "son of", "daughter of": the next name is the father's. */
export const CONNECTORS_AR: readonly string[] = ["بن", "ابن", "بنت"];
export const CONNECTORS_LAT: readonly string[] = ["bin", "ibn", "bint", "ben", "bent", "binti"];

export type Sex = "m" | "f" | "mf";

export interface GivenName {
  /** Arabic spellings (first is the usual one). */
  ar: readonly string[];
  /** Latin spellings, lowercase. */
  lat: readonly string[];
  sex: Sex;
  /** Among the most frequent names in Syria: a match on it alone says little. */
  common: boolean;
}

function n(ar: string, lat: string, flags = "m"): GivenName {
  return {
    ar: ar.split(",").map((s) => s.trim()),
    lat: lat.split(/\s+/).filter(Boolean),
    sex: (flags.replace("*", "") || "m") as Sex,
    common: flags.includes("*"),
  };
}

// Latin sun letters, digraphs first: the article's l is written as a doubling of them ("Abd ar-Rahman" →
// "Abdurrahman").
const SUN = ["th", "dh", "sh", "t", "d", "r", "z", "s", "n", "l"];

/** عبد + a divine name, with the Latin spellings people actually use for the compound. */
function abd(stemAr: string, latStems: string, sex = "m"): GivenName {
  const stems = latStems.split(/\s+/);
  const lat: string[] = [];
  for (const s of stems) {
    for (const p of ["abd", "abdul", "abdel", "abdal", "abdil", "abdoul", "abdu", "abde", "abda", "abed", "abdo"]) lat.push(p + s);
    const sun = SUN.find((c) => s.startsWith(c));
    if (sun) for (const v of ["u", "e", "a"]) lat.push(`abd${v}${sun}${s}`);
  }
  return { ar: [`عبد${stemAr}`], lat, sex: sex as Sex, common: false };
}

/** name + الدين ("of the faith"). */
function din(stemAr: string, latStems: string): GivenName {
  const lat: string[] = [];
  for (const s of latStems.split(/\s+/)) {
    for (const j of ["", "e", "a", "u", "i", "el", "al", "ul", "ed", "ad", "ud", "id"]) {
      for (const d of ["din", "deen", "dine"]) lat.push(s + j + d);
    }
  }
  return { ar: [`${stemAr}الدين`], lat, sex: "m", common: false };
}

/** name + الله. */
function allah(stemAr: string, latStems: string): GivenName {
  const lat: string[] = [];
  for (const s of latStems.split(/\s+/)) {
    for (const a of ["allah", "ullah", "alla", "ulla", "illah", "ollah", "lah", "la"]) lat.push(s + a);
  }
  return { ar: [`${stemAr}الله`], lat, sex: "m", common: false };
}

export const GIVEN_NAMES: readonly GivenName[] = [
  n("محمد", "mohammad muhammad mohamed mohammed mohamad muhamad mouhamad mouhammad muhammed mohamet mohammd mohamd mhd mohd muhd mouhamed mohmmad", "m*"),
  n("أحمد", "ahmad ahmed ahmet ahmmad", "m*"),
  n("محمود", "mahmoud mahmud mahmood mahmod mahmout", "m*"),
  n("علي", "ali aly aali alee", "m*"),
  n("حسن", "hasan hassan hassen hasen", "m*"),
  n("حسان", "hassan hasan hassane", "m"),
  n("حسين", "hussein husain hussain husein hossein houssein hussien husayn hoseyn hosein hussin hossain", "m*"),
  n("عمر", "omar umar omer oumar omare", "m*"),
  n("خالد", "khaled khalid khaleed kaled xalid khalled", "m*"),
  n("عبدالله,عبدلله", "abdullah abdallah abdulla abdalla abdellah abdollah abdulah abdila abdelah abdoulah abdala abdulllah", "m*"),
  n("مصطفى", "mustafa moustafa mostafa mustapha moustapha mostapha mustafah mustafa", "m*"),
  n("يوسف", "yousef youssef yusuf yousif youssif yusef yousuf usef yossef youcef yusif", "m*"),
  n("إبراهيم,براهيم", "ibrahim ebrahim brahim ibraheem ibrahem ebraheem", "m*"),
  n("إسماعيل,اسمعيل", "ismail ismael esmail smail ismaeel ismaiel ismaail esmaeel", "m"),
  n("عثمان,عتمان", "othman uthman osman usman otman outhman", "m"),
  n("يحيى,يحيا", "yahya yehia yahia yehya yahiya yahyah", "m"),
  n("زكريا,زكرياء", "zakaria zakariya zakariyya zakariyah zakarya zakariah zakaraya", "m"),
  n("عيسى,عيسا", "issa isa eisa essa aissa", "m"),
  n("موسى,موسا", "musa moussa mousa mosa moosa mussa", "m"),
  n("طارق", "tarek tariq tarik tareq tarec", "m"),
  n("زياد", "ziad ziyad zeyad ziyaad zyad ziyyad", "m"),
  n("إياد", "iyad eyad iyyad eyyad", "m"),
  n("قاسم", "qassem kassem qasim kasim qasem kasem gassem qassim", "m"),
  n("وائل", "wael wail wa'el wa'il ouael wayel", "m"),
  n("هيثم,هيتم", "haitham haytham heitham haisam haitam haytam", "m"),
  n("عمار", "ammar amar ammaar", "m"),
  n("ياسر", "yasser yaser yasir yassir", "m"),
  n("ياسين", "yassin yasin yaseen yassine yacine yasine", "m"),
  n("يونس", "younes yunus yunes younis younus younnes", "m"),
  n("سامر", "samer saamer", "m"),
  n("سمير", "samir sameer semir", "m"),
  n("سميرة", "samira sameera samireh samire", "f"),
  n("سامي", "sami samy sammy", "m"),
  n("سليم", "salim saleem selim", "m"),
  n("سالم", "salem salim saalem", "m"),
  n("سليمان", "suleiman sulaiman soliman sleiman slieman solaiman suleyman sulayman souleiman", "m"),
  n("فراس", "firas feras", "m"),
  n("نزار", "nizar nezar nizaar", "m"),
  n("وليد", "walid waleed oualid welid", "m"),
  n("خليل", "khalil khaleel", "m"),
  n("جليل", "jalil jaleel", "m"),
  n("جميل", "jamil jameel gamil djamil", "m"),
  n("جمال", "jamal gamal djamal jamaal", "m"),
  n("كمال", "kamal kemal kamaal", "m"),
  n("كامل", "kamel kamil", "m"),
  n("حمزة", "hamza hamzeh hamzah hamze", "m"),
  n("حمدي", "hamdi hamdy", "m"),
  n("حمد", "hamad hamed", "m"),
  n("فؤاد", "fouad fuad fuaad fouaad", "m"),
  n("رائد", "raed raid ra'ed raeed rayed", "m"),
  n("ماهر", "maher mahir", "m"),
  n("مازن", "mazen mazin", "m"),
  n("ناصر", "nasser naser nasir nassir", "m"),
  n("نصر", "nasr nassr", "m"),
  n("عدنان", "adnan adnane", "m"),
  n("بسام", "bassam basam", "m"),
  n("بشار", "bashar bachar bashaar", "m"),
  n("بشير", "bashir basheer bachir", "m"),
  n("شادي", "shadi chadi shady", "m"),
  n("فادي", "fadi fady", "m"),
  n("رامي", "rami ramy", "m"),
  n("هاني", "hani hany", "m"),
  n("هادي", "hadi hady", "m"),
  n("مهند", "muhannad mohanad mohannad muhanad mouhannad", "m"),
  n("أيمن", "ayman aiman eyman", "m"),
  n("أمين", "amin ameen emin", "m"),
  n("أنس", "anas", "m"),
  n("نبيل", "nabil nabeel", "m"),
  n("نبيه", "nabih nabeeh", "m"),
  n("بلال", "bilal belal", "m"),
  n("رضوان", "radwan ridwan redwan rudwan", "m"),
  n("مروان", "marwan", "m"),
  n("غسان", "ghassan ghasan gassan", "m"),
  n("فايز,فائز", "fayez faiz fayiz faez", "m"),
  n("جهاد", "jihad jehad gihad djihad", "m"),
  n("ماجد", "majed majid magid", "m"),
  n("مجد", "majd mejd", "m"),
  n("عماد", "imad emad", "m"),
  n("ثائر", "thaer thaier saer thair", "m"),
  n("تامر", "tamer tamir", "m"),
  n("ثامر", "thamer thamir", "m"),
  n("صلاح", "salah slah", "m"),
  n("صالح", "saleh salih saaleh", "m"),
  n("منير", "mounir munir moneer", "m"),
  n("غازي", "ghazi ghazy", "m"),
  n("فاروق", "farouk farooq faruq farook farouq", "m"),
  n("بكر", "bakr bakir baker", "m"),
  n("أبوبكر", "abubakr abubaker aboubakr aboubaker abubakar", "m"),
  n("علاء,آلاء", "alaa ala alaa'", "mf"),
  n("عمرو", "amr amro amru", "m"),
  n("لؤي", "louay luay loai lui louai", "m"),
  n("أيهم", "ayham aiham eiham", "m"),
  n("نور", "nour nur noor", "mf"),
  n("سيف", "saif seif sayf", "m"),
  n("شريف", "sharif cherif shareef", "m"),
  n("راشد", "rashed rashid", "m"),
  n("رشيد", "rashid rachid rasheed", "m"),
  n("مهدي", "mahdi mehdi", "m"),
  n("حيدر", "haidar haydar", "m"),
  n("عباس", "abbas", "m"),
  n("جعفر", "jaafar jafar jaafer", "m"),
  n("كريم", "karim kareem", "m"),
  n("عادل", "adel adil", "m"),
  n("عامر", "amer aamer", "m"),
  n("أمير", "amir ameer", "m"),
  n("منذر", "munzer monzer munther mundhir monther", "m"),
  n("معاذ", "muaz moaz muath moaaz muadh mouaz", "m"),
  n("أسامة", "osama usama oussama ousama ossama", "m"),
  n("رياض", "riad riyad riyadh", "m"),
  n("مراد", "murad mourad morad", "m"),
  n("معتز", "moataz mutaz moutaz motaz", "m"),
  n("منصور", "mansour mansur", "m"),
  n("نادر", "nader nadir", "m"),
  n("وسيم", "wassim wasim waseem", "m"),
  n("باسل", "basel basil bassel", "m"),
  n("باسم", "basem bassem basim", "m"),
  n("حازم", "hazem hazim", "m"),
  n("حسام", "hossam husam houssam hussam", "m"),
  n("هشام", "hisham hicham hesham", "m"),
  n("عصام", "issam essam isam", "m"),
  n("كنان", "kinan kenan", "m"),
  n("قصي", "qusai kusai qusay kousay qussai", "m"),
  n("ربيع", "rabie rabih rabea rabee", "m"),
  n("داود,داوود", "dawood daoud dawoud dawud daood", "m"),
  n("فيصل", "faisal faysal feisal", "m"),
  n("طلال", "talal", "m"),
  n("زهير", "zuhair zouheir zuhayr zoheir", "m"),
  n("شكري", "shukri choukri", "m"),
  n("صبحي", "subhi sobhi", "m"),
  n("فتحي", "fathi fethi", "m"),
  n("لطفي", "lutfi lotfi", "m"),
  n("مأمون", "mamoun mamun", "m"),
  n("مؤيد", "moayad muayad mouayad muayyad moayyad", "m"),
  n("محسن", "mohsen muhsin", "m"),
  n("سعيد", "said saeed saied saeid", "m"),
  n("سعد", "saad sa'ad", "m"),
  n("خير", "khair kheir khayr", "m"),
  n("ذياب,دياب", "dhiab diab thiab diyab", "m"),
  n("ديب,ذيب", "dib deeb theeb", "m"),
  n("فارس", "fares faris", "m"),
  n("نضال", "nidal nedal", "m"),
  n("يامن", "yamen yamin", "m"),
  n("مالك", "malek malik", "m"),
  n("حامد", "hamed hamid", "m"),
  n("حميد", "hamid hameed", "m"),
  n("عبدو", "abdo abdou abdu", "m"),
  n("الياس,إلياس", "elias ilyas elyas ilias", "m"),
  abd("الرحمن", "rahman rahmane"),
  abd("الرحيم", "rahim raheem"),
  abd("الكريم", "karim kareem"),
  abd("العزيز", "aziz azeez"),
  abd("القادر", "qader kader qadir kadir"),
  abd("الحميد", "hamid hameed"),
  abd("الرزاق", "razzaq razak razaq razzak"),
  abd("اللطيف", "latif lateef"),
  abd("الغني", "ghani ghany"),
  abd("السلام", "salam"),
  abd("الناصر", "nasser naser nasir"),
  abd("المجيد", "majid majeed"),
  abd("الحكيم", "hakim hakeem"),
  { ...abd("الإله", "ilah ilaah"), lat: [...abd("الإله", "ilah ilaah").lat, "abdulelah", "abdelelah", "abdulilah", "abdelilah"] },
  abd("الباسط", "basit baset"),
  abd("الفتاح", "fattah fatah"),
  abd("الوهاب", "wahab wahhab"),
  abd("الهادي", "hadi hady"),
  abd("الجليل", "jalil jaleel"),
  abd("المنعم", "monem moneim munim"),
  abd("الرؤوف", "raouf rauf raoof"),
  abd("الحليم", "halim haleem"),
  abd("المعين", "moin muin"),
  abd("الحي", "hai hay"),
  din("نور", "nour nur noor"),
  din("صلاح", "salah sala"),
  din("علاء", "alaa ala"),
  din("عز", "ez iz izz ezz"),
  din("بدر", "badr bader"),
  din("شمس", "shams chams"),
  din("سيف", "saif seif"),
  din("خير", "khair kheir khayr"),
  din("فخر", "fakhr fakher"),
  din("جمال", "jamal"),
  din("كمال", "kamal"),
  din("محي", "muhi mohi mohy"),
  din("تاج", "taj"),
  din("زين", "zain zein zin"),
  din("نصر", "nasr nas"),
  din("عماد", "imad emad"),
  allah("نصر", "nasr"),
  allah("فضل", "fadl fadel fazl"),
  allah("خير", "khair kheir"),
  allah("عطا", "ata atta"),
  allah("جاد", "jad"),
  allah("حسب", "hasab"),
  allah("فتح", "fath fat"),
  // women
  n("فاطمة", "fatima fatma fatmeh fatme fatimah fatemeh fatmah", "f*"),
  n("عائشة", "aisha aicha aysha ayesha aishah aischa", "f"),
  n("خديجة", "khadija khadijeh khadijah khadeeja khadije", "f*"),
  n("مريم", "mariam maryam miriam mariem meryem mariyam", "f*"),
  n("زينب", "zainab zeinab zaynab", "f"),
  n("آمنة", "amina ameena aminah amneh amna amineh", "f"),
  n("سلمى", "salma salmah selma", "f"),
  n("ليلى", "layla leila laila leyla lila", "f"),
  n("هدى", "huda houda hoda", "f"),
  n("رغد", "raghad", "f"),
  n("رنا", "rana", "f"),
  n("رهف", "rahaf", "f"),
  n("هبة", "hiba heba hibah hibeh", "f"),
  n("دعاء", "doaa duaa do'aa", "f"),
  n("إسراء", "israa esraa isra", "f"),
  n("نادية", "nadia nadya nadiya", "f"),
  n("سعاد", "souad suad soad", "f"),
  n("سوسن", "sawsan sousan", "f"),
  n("منى", "mona muna mouna", "f"),
  n("نهى", "noha nuha", "f"),
  n("لمى", "lama", "f"),
  n("رشا", "rasha racha", "f"),
  n("ريم", "reem rim", "f"),
  n("هالة", "hala haleh", "f"),
  n("جميلة", "jamila jameela djamila", "f"),
  n("وفاء", "wafaa wafa", "f"),
  n("نسرين", "nisreen nesreen nasrin nisrine", "f"),
  n("يسرى", "yusra yousra yosra", "f"),
  n("بشرى", "bushra boushra bouchra", "f"),
  n("أمل", "amal", "f"),
  n("ابتسام", "ibtisam ebtisam ibtissam", "f"),
  n("رقية", "ruqaya roukaya ruqayya ruqayyah", "f"),
  n("سارة", "sara sarah", "f"),
  n("نور الهدى", "nour alhuda nourelhouda nour alhouda nurulhuda", "f"),
  n("رحاب", "rehab rihab", "f"),
  n("غادة", "ghada", "f"),
  n("عبير", "abeer abir", "f"),
  n("إلهام", "elham ilham", "f"),
  n("ألفت", "olfat ulfat alfat", "f"),
];
