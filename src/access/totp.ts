import { Secret, TOTP } from "otpauth";

/**
 * TOTP (RFC 6238) as every authenticator app speaks it: SHA-1, 6 digits, 30-second steps. A code is accepted
 * one step either side of now (clock drift), and the step it matched is returned so the caller can refuse any
 * step at or before the last one accepted: a code seen over a shoulder or in a proxy cannot be used again.
 */
export const TOTP_PERIOD = 30;
const DIGITS = 6;

export function newTotpSecret(): Buffer {
  return Buffer.from(new Secret({ size: 20 }).bytes);
}

export function totpUri(secret: Buffer, account: string, issuer = "dalil"): string {
  return new TOTP({ issuer, label: account, secret: secretOf(secret), algorithm: "SHA1", digits: DIGITS, period: TOTP_PERIOD }).toString();
}

export function base32(secret: Buffer): string {
  return secretOf(secret).base32;
}

/** The time step a code matches at `at`, or null. */
export function matchTotp(secret: Buffer, code: string, at: Date): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const timestamp = at.getTime();
  const delta = TOTP.validate({ token, secret: secretOf(secret), algorithm: "SHA1", digits: DIGITS, period: TOTP_PERIOD, timestamp, window: 1 });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD, timestamp }) + delta;
}

/** The code for a moment: for tests and for the enrolment check. */
export function totpCode(secret: Buffer, at: Date): string {
  return TOTP.generate({ secret: secretOf(secret), algorithm: "SHA1", digits: DIGITS, period: TOTP_PERIOD, timestamp: at.getTime() });
}

function secretOf(b: Buffer): Secret {
  return new Secret({ buffer: new Uint8Array(b).buffer });
}
