/**
 * Typed errors every use case throws. HTTP maps them to status codes, the CLI to a message on stderr and an
 * exit code. The message is a sentence a user can act on; it must never contain secrets or personal data.
 * Errors a person meets on a screen also carry a message key with parameters (`says`), as families' evidence
 * does, so the web app words them in the reader's language.
 */
import { english, type MessageKey, type MessageParams, type Said } from "./messages.ts";

export class DalilError extends Error {
  readonly status: number = 500;
  readonly code: string = "internal";
  readonly exitCode: number = 1;
  /** The same sentence as a message key with parameters, worded by the web app in the reader's language. */
  key?: MessageKey;
  params?: MessageParams;

  /** An English sentence, or a message said with `say(key, params)`: its English sentence is worded from the key. */
  constructor(message: string | Said, options?: ErrorOptions) {
    super(typeof message === "string" ? message : english(message.key, message.params), options);
    if (typeof message !== "string") {
      this.key = message.key;
      this.params = message.params;
    }
  }

  /** Say this error as `key` with `params` too (the English `message` stays for the CLI and the log). */
  says(key: MessageKey, params: MessageParams = {}): this {
    this.key = key;
    this.params = params;
    return this;
  }
}

export class NotFound extends DalilError {
  override readonly status = 404;
  override readonly code = "not_found";
}

export class Forbidden extends DalilError {
  override readonly status = 403;
  override readonly code = "forbidden";
  override readonly exitCode = 3;
}

export class Unauthenticated extends DalilError {
  override readonly status = 401;
  override readonly code = "unauthenticated";
  override readonly exitCode = 3;
}

export class Conflict extends DalilError {
  override readonly status = 409;
  override readonly code = "conflict";
}

export class Invalid extends DalilError {
  override readonly status = 422;
  override readonly code = "invalid";
  override readonly exitCode = 2;
  constructor(
    message: string | Said,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class TooLarge extends DalilError {
  override readonly status = 413;
  override readonly code = "too_large";
  override readonly exitCode = 2;
}

export class UnsupportedMediaType extends DalilError {
  override readonly status = 415;
  override readonly code = "unsupported_media_type";
  override readonly exitCode = 2;
}

export class RateLimited extends DalilError {
  override readonly status = 429;
  override readonly code = "rate_limited";
}

/** Integrity failures: a blob that does not decrypt or does not hash to its address, a log that does not verify. */
export class IntegrityError extends DalilError {
  override readonly status = 500;
  override readonly code = "integrity";
}

/** A service the archive depends on (the database, the blob store) cannot be reached or answers with its own error. */
export class Unavailable extends DalilError {
  override readonly status = 503;
  override readonly code = "unavailable";
  override readonly exitCode = 2;
}
