import { useTranslation } from "react-i18next";
import { ApiError } from "../api/client.ts";
import { Notice } from "./Notice.tsx";

const KNOWN = new Set(["unauthenticated", "forbidden", "not_found", "invalid", "conflict", "too_large", "rate_limited", "network", "aborted", "internal", "integrity"]);

/**
 * An error in the reader's language. The server's own sentence (in English: it is also what the CLI prints and
 * what support will recognise) follows it, marked as English so it is read and laid out as such.
 */
export function ErrorNote({ error }: { error: unknown }) {
  const { t, i18n } = useTranslation();
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : "internal";
  const title = t(`errors.${KNOWN.has(code) ? code : "internal"}`);
  const detail = error instanceof Error ? error.message : String(error);
  return (
    <Notice kind="error" title={title}>
      {detail && detail !== title && (
        <p className="error-detail">
          {i18n.language !== "en" && <span className="muted">{t("errors.serverSaid")} </span>}
          <span lang="en" dir="ltr">
            {detail}
          </span>
        </p>
      )}
    </Notice>
  );
}
