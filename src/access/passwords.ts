import { hash, verify, type Algorithm, type Options } from "@node-rs/argon2";
import { randomInt } from "node:crypto";
import { Invalid } from "../core/errors.ts";
import * as contracts from "./contracts.ts";

/**
 * Passwords: argon2id with OWASP's baseline (19 MiB, 2 passes, 1 lane). The parameters live in the PHC
 * string, so raising them later only changes new hashes and old ones still verify.
 */
const ARGON2ID = 2 as Algorithm; // the package's const enum cannot be read under isolatedModules
const PARAMS: Options = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = contracts.MAX_PASSWORD;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/** A hash of a random password, verified against when the account does not exist so timing does not tell. */
let dummy: Promise<string> | undefined;

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD) return false;
  if (stored === null) {
    dummy ??= hashPassword(oneTimePassword());
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

export function checkNewPassword(password: string, email: string): void {
  if (password.length < MIN_PASSWORD) {
    throw new Invalid(`Choose a password of at least ${MIN_PASSWORD} characters; a short phrase of several words is easiest to remember.`, "password").says("password.tooShort", { min: MIN_PASSWORD });
  }
  if (password.length > MAX_PASSWORD) throw new Invalid(`Choose a password of at most ${MAX_PASSWORD} characters.`, "password").says("password.tooLong", { max: MAX_PASSWORD });
  const name = email.toLowerCase().split("@")[0] ?? "";
  if (name.length >= 4 && password.toLowerCase().includes(name)) {
    throw new Invalid("Choose a password that does not contain your email name.", "password").says("password.containsEmail");
  }
}

/** Unambiguous characters (no 0/O, 1/l/I), grouped for reading aloud over a phone: about 100 bits. */
const READABLE = "abcdefghjkmnpqrstuvwxyz23456789";

export function oneTimePassword(groups = 5, size = 4): string {
  const parts: string[] = [];
  for (let g = 0; g < groups; g++) {
    let p = "";
    for (let i = 0; i < size; i++) p += READABLE[randomInt(READABLE.length)];
    parts.push(p);
  }
  return parts.join("-");
}
