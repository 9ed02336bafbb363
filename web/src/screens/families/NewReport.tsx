import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { BRANCH_CERTAINTIES, CONSENT_TIERS, type BranchCertainty, type ConsentTier, type Mark, type ReportInput } from "../../api/types/families.ts";
import { Link, navigate } from "../../app/router.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { families } from "./api.ts";
import { listOf, TermField, useAct, useFormTerms } from "./shared.tsx";
import "./families.css";

/**
 * A new missing-person report as a caseworker takes it down with a family: the name in both scripts split into
 * its parts (the archive compares part with part), dates as precise as the family knows them, marks by kind and
 * place on the body, and the consent the family gives now (each tier can be withdrawn later).
 */
const SLOTS = ["given", "father", "grandfather", "family"] as const;
type Slot = (typeof SLOTS)[number];
const PRECISIONS = ["year", "month", "day", "approximate"] as const;
type Precision = (typeof PRECISIONS)[number];

/** The birth date as the server reads it: YYYY, YYYY-MM, YYYY-MM-DD, or ~YYYY for an approximate year. */
function birthDate(value: string, precision: Precision): string | null {
  const v = value.trim();
  if (!v) return null;
  if (precision === "approximate") return `~${v.slice(0, 4)}`;
  const parts = v.split("-");
  return parts.slice(0, precision === "year" ? 1 : precision === "month" ? 2 : 3).join("-");
}

const joinName = (parts: Record<Slot, string>) =>
  SLOTS.map((s) => parts[s].trim())
    .filter(Boolean)
    .join(" ") || null;

const emptySlots = (): Record<Slot, string> => ({ given: "", father: "", grandfather: "", family: "" });

export function NewReport(_props: ScreenProps) {
  return <ReportForm portal={false} />;
}

/** The same form for a family member in the portal: plainer words, the Arabic name first; a caseworker reads it before it is used. */
export function PortalNewReport(_props: ScreenProps) {
  return <ReportForm portal />;
}

function ReportForm({ portal }: { portal: boolean }) {
  const { t } = useTranslation();
  // the portal's plainer words where it has its own, else the caseworker's
  const L = (key: string, opts?: Record<string, unknown>): string => (portal ? t([`families.portalForm.${key}`, `families.${key}`], opts) : t(`families.${key}`, opts));
  const markTypes = useFormTerms("mark_type", portal);
  const regions = useFormTerms("body_region", portal);
  const governorates = useFormTerms("governorate", portal);
  const [ar, setAr] = useState(emptySlots);
  const [lat, setLat] = useState(emptySlots);
  const [mother, setMother] = useState("");
  const [aliases, setAliases] = useState("");
  const [sex, setSex] = useState<"" | "male" | "female">("");
  const [birth, setBirth] = useState("");
  const [precision, setPrecision] = useState<Precision>("year");
  const [birthPlace, setBirthPlace] = useState("");
  const [arrestDate, setArrestDate] = useState("");
  const [arrestPlace, setArrestPlace] = useState("");
  const [governorate, setGovernorate] = useState("");
  const [branch, setBranch] = useState("");
  const [certainty, setCertainty] = useState<"" | BranchCertainty>("");
  const [marks, setMarks] = useState<Mark[]>([]);
  const [consent, setConsent] = useState<Partial<Record<ConsentTier, boolean>>>({});
  const [reporter, setReporter] = useState({ name: "", relationship: "", contact: "" });
  const { busy, error, run } = useAct();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input: ReportInput = {
      nameAr: joinName(ar),
      nameLat: joinName(lat),
      fatherName: ar.father.trim() || lat.father.trim() || null,
      motherName: mother.trim() || null,
      aliases: listOf(aliases),
      sex: sex || null,
      birthDate: birthDate(birth, precision),
      birthPlace: birthPlace.trim() || null,
      arrestDate: arrestDate.trim() || null,
      arrestPlace: arrestPlace.trim() || null,
      arrestGovernorate: governorate || null,
      branch: branch.trim() || null,
      branchCertainty: branch.trim() && certainty ? certainty : null,
      marks: marks.filter((m) => m.type),
      consent,
      reporterName: reporter.name.trim() || null,
      reporterRelationship: reporter.relationship.trim() || null,
      reporterContact: reporter.contact.trim() || null,
    };
    await run(async () => {
      const made = await families.createReport(input);
      navigate(portal ? `/portal/reports/${made.id}` : `/families/reports/${made.id}`);
    });
  };

  const slotFields = (script: "ar" | "lat", value: Record<Slot, string>, set: (v: Record<Slot, string>) => void) => (
    <fieldset className="fam-slots">
      <legend>{L(`form.name_${script}`)}</legend>
      {SLOTS.map((s) => (
        <div className="field" key={s}>
          <label htmlFor={`rep-${script}-${s}`}>{L(`slots.${s}`)}</label>
          <input id={`rep-${script}-${s}`} dir={script === "ar" ? "rtl" : "ltr"} lang={script === "ar" ? "ar" : "en"} value={value[s]} onChange={(e) => set({ ...value, [s]: e.target.value })} />
        </div>
      ))}
    </fieldset>
  );

  return (
    <section aria-labelledby="fam-form-title">
      <div className="screen-head">
        <h1 id="fam-form-title">{L("form.title")}</h1>
        {portal ? <Link to="/portal">{t("families.portal.back")}</Link> : <Link to="/families/reports">{t("families.reports.back")}</Link>}
      </div>
      <p className="muted small">{L("form.intro")}</p>
      <form className="fam-form" onSubmit={(e) => void submit(e)} data-testid="report-form" data-portal={portal ? "true" : undefined}>
        <h2>{L("form.person")}</h2>
        {slotFields("ar", ar, setAr)}
        {slotFields("lat", lat, setLat)}
        <div className="fam-grid">
          <div className="field">
            <label htmlFor="rep-mother">{L("slots.mother")}</label>
            <input id="rep-mother" dir="auto" value={mother} onChange={(e) => setMother(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="rep-aliases">{L("fields.aliases")}</label>
            <input id="rep-aliases" dir="auto" value={aliases} aria-describedby="rep-aliases-help" onChange={(e) => setAliases(e.target.value)} />
            <span id="rep-aliases-help" className="muted small">
              {L("form.aliasesHelp")}
            </span>
          </div>
          <div className="field">
            <label htmlFor="rep-sex">{L("fields.sex")}</label>
            <select id="rep-sex" value={sex} onChange={(e) => setSex(e.target.value as "" | "male" | "female")}>
              <option value="">{t("families.unknown")}</option>
              <option value="male">{t("families.sex.male")}</option>
              <option value="female">{t("families.sex.female")}</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="rep-birth">{L("fields.birthDate")}</label>
            <input id="rep-birth" dir="ltr" inputMode="numeric" value={birth} aria-describedby="rep-birth-help" onChange={(e) => setBirth(e.target.value)} />
            <span id="rep-birth-help" className="muted small">
              {L("form.dateHelp")}
            </span>
          </div>
          <div className="field">
            <label htmlFor="rep-precision">{L("fields.precision")}</label>
            <select id="rep-precision" value={precision} onChange={(e) => setPrecision(e.target.value as Precision)}>
              {PRECISIONS.map((p) => (
                <option key={p} value={p}>
                  {t(`families.precision.${p}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="rep-birthplace">{L("fields.birthPlace")}</label>
            <input id="rep-birthplace" dir="auto" value={birthPlace} onChange={(e) => setBirthPlace(e.target.value)} />
          </div>
        </div>

        <h2>{L("form.arrest")}</h2>
        <div className="fam-grid">
          <div className="field">
            <label htmlFor="rep-arrest">{L("fields.arrestDate")}</label>
            <input id="rep-arrest" dir="ltr" value={arrestDate} aria-describedby="rep-arrest-help" onChange={(e) => setArrestDate(e.target.value)} />
            <span id="rep-arrest-help" className="muted small">
              {L("form.dateHelp")}
            </span>
          </div>
          <div className="field">
            <label htmlFor="rep-arrest-place">{L("fields.arrestPlace")}</label>
            <input id="rep-arrest-place" dir="auto" value={arrestPlace} onChange={(e) => setArrestPlace(e.target.value)} />
          </div>
          <TermField id="rep-governorate" label={L("fields.governorate")} value={governorate} onChange={setGovernorate} vocabulary={governorates} />
          <div className="field">
            <label htmlFor="rep-branch">{L("fields.branch")}</label>
            <input id="rep-branch" dir="auto" value={branch} onChange={(e) => setBranch(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="rep-certainty">{L("fields.certainty")}</label>
            <select id="rep-certainty" value={certainty} onChange={(e) => setCertainty(e.target.value as "" | BranchCertainty)}>
              <option value="">{t("families.unknown")}</option>
              {BRANCH_CERTAINTIES.map((c) => (
                <option key={c} value={c}>
                  {t(`families.certainty.${c}`)}
                </option>
              ))}
            </select>
          </div>
        </div>

        <h2>{L("fields.marks")}</h2>
        {marks.map((m, i) => (
          <fieldset className="fam-mark" key={i}>
            <legend>{L("form.markN", { n: i + 1 })}</legend>
            <TermField id={`mark-type-${i}`} label={L("form.markType")} value={m.type} onChange={(v) => setMarks(marks.map((x, j) => (j === i ? { ...x, type: v } : x)))} vocabulary={markTypes} />
            <TermField id={`mark-region-${i}`} label={L("form.markRegion")} value={m.region ?? ""} onChange={(v) => setMarks(marks.map((x, j) => (j === i ? { ...x, region: v || null } : x)))} vocabulary={regions} />
            <div className="field">
              <label htmlFor={`mark-desc-${i}`}>{L("form.markDescription")}</label>
              <input id={`mark-desc-${i}`} dir="auto" value={m.description} onChange={(e) => setMarks(marks.map((x, j) => (j === i ? { ...x, description: e.target.value } : x)))} />
            </div>
            <button type="button" className="link-button" onClick={() => setMarks(marks.filter((_, j) => j !== i))}>
              {L("form.removeMark")}
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => setMarks([...marks, { type: "", region: null, description: "" }])}>
          {L("form.addMark")}
        </button>

        <h2>{L("form.reporter")}</h2>
        <div className="fam-grid">
          {(["name", "relationship", "contact"] as const).map((k) => (
            <div className="field" key={k}>
              <label htmlFor={`rep-reporter-${k}`}>{L(`reporter.${k}`)}</label>
              <input id={`rep-reporter-${k}`} dir="auto" value={reporter[k]} onChange={(e) => setReporter({ ...reporter, [k]: e.target.value })} />
            </div>
          ))}
        </div>

        <fieldset className="fam-consent">
          <legend>{L("consent.title")}</legend>
          <p className="muted small">{L("consent.formHelp")}</p>
          {CONSENT_TIERS.map((tier) => (
            <div key={tier} className="fam-check">
              <input id={`rep-consent-${tier}`} type="checkbox" checked={consent[tier] ?? false} onChange={(e) => setConsent({ ...consent, [tier]: e.target.checked })} />
              <label htmlFor={`rep-consent-${tier}`}>{t(`families.consent.tiers.${tier}`)}</label>
            </div>
          ))}
        </fieldset>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" disabled={busy}>
            {L("form.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
