import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import QRCode from "qrcode";
import { api, setCsrfToken } from "../api/client.ts";
import type { Enrolment, SignInStep, Stage } from "../api/types.ts";
import { useSession } from "../app/session.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Notice } from "../components/Notice.tsx";

const MIN_PASSWORD = 12;

/**
 * Signing in, step by step as the server asks: password; then, as the account needs, a new password (after a
 * one-time password), setting up an authenticator app (QR code, then a first code, then recovery codes shown
 * once), or the code from the app. Each step's answer says which comes next.
 */
export function SignIn() {
  const { t } = useTranslation();
  const session = useSession();
  const serverStage: Stage | null = session.info?.signedIn ? "full" : (session.info?.stage ?? null);
  const [stage, setStage] = useState<Stage | null>(serverStage);
  const [oneTime, setOneTime] = useState<string | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<{ codes: string[]; step: SignInStep } | null>(null);

  useEffect(() => {
    if (!recoveryCodes) setStage(serverStage);
  }, [serverStage, recoveryCodes]);

  const advance = async (step: SignInStep) => {
    setStage(step.stage);
    await session.stepped(step);
  };

  return (
    <section className="signin narrow" aria-labelledby="signin-title">
      <h1 id="signin-title">{t("signin.title")}</h1>
      {recoveryCodes ? (
        <RecoveryCodes
          codes={recoveryCodes.codes}
          onDone={() => {
            const { step } = recoveryCodes;
            setRecoveryCodes(null);
            void advance(step);
          }}
        />
      ) : stage === null ? (
        <PasswordStep
          onDone={async (step, password) => {
            setOneTime(password);
            await advance(step);
          }}
        />
      ) : stage === "totp" ? (
        <CodeStep onDone={advance} />
      ) : stage === "password_change" ? (
        <NewPasswordStep current={oneTime} onDone={advance} />
      ) : stage === "totp_enrol" ? (
        <EnrolStep
          onDone={async (step, codes) => {
            // The codes stay on screen until the person says they saved them: they are shown only now.
            setCsrfToken(step.csrfToken);
            setRecoveryCodes({ codes, step });
          }}
        />
      ) : (
        <Notice kind="ok" title={t("signin.done")} />
      )}
    </section>
  );
}

function useSubmit<T extends unknown[]>(fn: (...args: T) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: T) => {
    setBusy(true);
    setError(null);
    try {
      await fn(...args);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

function PasswordStep({ onDone }: { onDone: (step: SignInStep, password: string) => Promise<void> }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const s = useSubmit(async () => onDone(await api.login(email.trim(), password), password));
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void s.run();
      }}
    >
      <p>{t("signin.intro")}</p>
      <div className="field">
        <label htmlFor="email">{t("signin.email")}</label>
        <input id="email" type="email" dir="ltr" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="password">{t("signin.password")}</label>
        <input id="password" type="password" dir="ltr" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </div>
      <ErrorNote error={s.error} />
      <button type="submit" className="primary" disabled={s.busy}>
        {t("signin.submit")}
      </button>
    </form>
  );
}

function CodeStep({ onDone }: { onDone: (step: SignInStep) => Promise<void> }) {
  const { t } = useTranslation();
  const [code, setCode] = useState("");
  const [useRecovery, setUseRecovery] = useState(false);
  const s = useSubmit(async () => onDone(await api.secondFactor(useRecovery ? { recoveryCode: code.trim() } : { code: code.replace(/\s+/g, "") })));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void s.run();
      }}
    >
      <p>{useRecovery ? t("signin.recoveryIntro") : t("signin.codeIntro")}</p>
      <div className="field">
        <label htmlFor="code">{useRecovery ? t("signin.recoveryCode") : t("signin.code")}</label>
        <input
          id="code"
          dir="ltr"
          autoComplete="one-time-code"
          inputMode={useRecovery ? "text" : "numeric"}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoFocus
        />
      </div>
      <ErrorNote error={s.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={s.busy}>
          {t("signin.verify")}
        </button>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setUseRecovery(!useRecovery);
            setCode("");
          }}
        >
          {useRecovery ? t("signin.useCode") : t("signin.useRecovery")}
        </button>
      </div>
    </form>
  );
}

function NewPasswordStep({ current, onDone }: { current: string | null; onDone: (step: SignInStep) => Promise<void> }) {
  const { t } = useTranslation();
  const [old, setOld] = useState(current ?? "");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const s = useSubmit(async () => onDone(await api.changePassword(old, next)));
  const problem = next.length > 0 && next.length < MIN_PASSWORD ? t("signin.tooShort", { n: MIN_PASSWORD }) : again.length > 0 && again !== next ? t("signin.mismatch") : null;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem && next === again) void s.run();
      }}
    >
      <h2>{t("signin.newPasswordTitle")}</h2>
      <p>{t("signin.newPasswordIntro", { n: MIN_PASSWORD })}</p>
      {current === null && (
        <div className="field">
          <label htmlFor="current">{t("signin.oneTimePassword")}</label>
          <input id="current" type="password" dir="ltr" autoComplete="current-password" required value={old} onChange={(e) => setOld(e.target.value)} />
        </div>
      )}
      <div className="field">
        <label htmlFor="new-password">{t("signin.newPassword")}</label>
        <input
          id="new-password"
          type="password"
          dir="ltr"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          aria-describedby="password-problem"
          value={next}
          onChange={(e) => setNext(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="new-password-again">{t("signin.confirmPassword")}</label>
        <input id="new-password-again" type="password" dir="ltr" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
      </div>
      <p id="password-problem" className="field-problem" aria-live="polite">
        {problem}
      </p>
      <ErrorNote error={s.error} />
      <button type="submit" className="primary" disabled={s.busy || problem !== null}>
        {t("signin.savePassword")}
      </button>
    </form>
  );
}

function EnrolStep({ onDone }: { onDone: (step: SignInStep, codes: string[]) => Promise<void> }) {
  const { t } = useTranslation();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState("");
  const start = useSubmit(async () => {
    const e = await api.enrol();
    setEnrolment(e);
    setQr(await QRCode.toDataURL(e.uri, { margin: 2, width: 220, errorCorrectionLevel: "M" }));
  });
  const confirm = useSubmit(async () => {
    const r = await api.enrolConfirm(code.replace(/\s+/g, ""));
    await onDone(r, r.recoveryCodes);
  });
  const started = useRef(false);
  useEffect(() => {
    // Once, on arrival: each call makes a new secret.
    if (started.current) return;
    started.current = true;
    void start.run();
  }, [start]);
  return (
    <div>
      <h2>{t("signin.enrolTitle")}</h2>
      <p>{t("signin.enrolIntro")}</p>
      <ErrorNote error={start.error} />
      {enrolment && (
        <ol className="steps">
          <li>
            <p>{t("signin.enrolScan")}</p>
            {qr && <img className="qr" src={qr} width={220} height={220} alt={t("signin.qrAlt")} />}
            <p>
              {t("signin.enrolKey")}{" "}
              <code dir="ltr" className="secret" data-testid="totp-secret">
                {enrolment.secret.replace(/(.{4})/g, "$1 ").trim()}
              </code>
            </p>
          </li>
          <li>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void confirm.run();
              }}
            >
              <div className="field">
                <label htmlFor="enrol-code">{t("signin.enrolCode")}</label>
                <input id="enrol-code" dir="ltr" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
              </div>
              <ErrorNote error={confirm.error} />
              <button type="submit" className="primary" disabled={confirm.busy}>
                {t("signin.enrolConfirm")}
              </button>
            </form>
          </li>
        </ol>
      )}
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <div>
      <h2>{t("signin.recoveryTitle")}</h2>
      <p>{t("signin.recoveryExplain")}</p>
      <ul className="codes" dir="ltr" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <button type="button" className="primary" onClick={onDone}>
        {t("signin.recoverySaved")}
      </button>
    </div>
  );
}
