import { useState } from "react";
import { useTranslation } from "react-i18next";

/** A hash or id: always left to right in Latin digits, selectable, with a copy button. */
export function Hash({ value, short = false }: { value: string; short?: boolean }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const shown = short && value.length > 20 ? `${value.slice(0, 12)}…${value.slice(-8)}` : value;
  return (
    <span className="hash">
      <code dir="ltr" title={short ? value : undefined}>
        {shown}
      </code>
      <button
        type="button"
        className="copy"
        aria-label={t("common.copyValue")}
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {copied ? t("common.copied") : t("common.copy")}
      </button>
    </span>
  );
}
