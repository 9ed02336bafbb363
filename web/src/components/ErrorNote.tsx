import { useTranslation } from "react-i18next";
import { ApiError } from "../api/client.ts";
import { Notice } from "./Notice.tsx";

const KNOWN = new Set(["unauthenticated", "forbidden", "not_found", "invalid", "conflict", "too_large", "rate_limited", "network", "aborted", "internal", "integrity"]);

/**
 * An error in the reader's language. When the server sent a message key (`server.<key>`), its sentence is
 * worded here from the key and its parameters; otherwise the server's own sentence (in English: it is also what
 * the CLI prints and what support will recognise) follows the title, marked as English so it is read and laid
 * out as such.
 */
export function ErrorNote({ error }: { error: unknown }) {
  const { t, i18n } = useTranslation();
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : "internal";
  const title = t(`errors.${KNOWN.has(code) ? code : "internal"}`);
  const worded = serverSentence(error, t, i18n.exists.bind(i18n));
  if (worded) {
    return (
      <Notice kind="error" title={title}>
        <p className="error-detail" data-key={(error as ApiError).key}>
          {worded}
        </p>
      </Notice>
    );
  }
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

/**
 * A sentence the server stored as a message key with parameters (a quarantine reason, a job's progress or failure),
 * in the reader's language; a text stored without a key (older records, a reader's own refusal) is shown as it
 * is, marked as English.
 */
export function ServerText({ text, messageKey, params }: { text: string | null | undefined; messageKey?: string | null; params?: Record<string, unknown> | null }) {
  const { t, i18n } = useTranslation();
  const worded = messageKey ? wordKey(messageKey, params ?? {}, t, i18n.exists.bind(i18n)) : null;
  if (worded) return <span data-key={messageKey}>{worded}</span>;
  if (!text) return null;
  return (
    <span lang="en" dir="ltr">
      {text}
    </span>
  );
}

type T = (key: string, options?: Record<string, unknown>) => string;

/** The server's message in the reader's language, or null when it sent no key this app can word. */
export function serverSentence(error: unknown, t: T, exists: (key: string, options?: Record<string, unknown>) => boolean): string | null {
  if (!(error instanceof ApiError) || !error.key) return null;
  return wordKey(error.key, error.params ?? {}, t, exists);
}

/** `server.<key>` worded with its parameters, or null when this app has no words for the key. */
export function wordKey(key: string, given: Record<string, unknown>, t: T, exists: (key: string, options?: Record<string, unknown>) => boolean): string | null {
  const params: Record<string, unknown> = { ...given };
  // A counted message exists as its plural forms (key_one, key_other…): ask with its count.
  if (!exists(`server.${key}`, params)) return null;
  // Roles and field names have their own words; the rest (times, numbers, paths) go in as they are.
  if (typeof params.role === "string") params.role = t(`roles.${params.role}`, { defaultValue: params.role });
  if (typeof params.sensitivity === "string") params.sensitivity = t(`server.sensitivity.${params.sensitivity}`, { defaultValue: params.sensitivity });
  if (typeof params.action === "string") params.action = t(`server.action.${params.action}`, { defaultValue: params.action });
  if (typeof params.kind === "string") params.kind = t(`server.kind.${params.kind}`, { defaultValue: params.kind });
  if (typeof params.tier === "string") params.tier = t(`server.tier.${params.tier}`, { defaultValue: params.tier });
  return t(`server.${key}`, params);
}
