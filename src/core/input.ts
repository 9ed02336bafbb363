import type { z, ZodError, ZodTypeAny } from "zod";
import { Invalid } from "./errors.ts";

/**
 * The one validation of what a caller sends a use case (decision 0021). Every use case whose input has a schema
 * (in its module's contracts.ts) starts with `parseInput(Schema, input)`: the HTTP route, the CLI command and
 * another module's call all reach the same check. A failure is the archive's `Invalid` (422 over HTTP, exit
 * code 2 on the CLI) naming the field, with the message key the HTTP edge gave zod's errors before:
 * `request.invalid` with the field, or `request.invalidBody` when the input as a whole is wrong.
 */
export function parseInput<S extends ZodTypeAny>(schema: S, input: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data as z.output<S>;
  throw invalidInput(parsed.error);
}

/** `Invalid` for a zod error: an English sentence (the CLI prints it) and the key the web app words. */
export function invalidInput(error: ZodError): Invalid {
  const issue = error.issues[0];
  const field = issue ? issue.path.join(".") : "";
  const why = issue ? issue.message.replace(/\.$/, "") : "it does not have the expected shape";
  if (!field) return new Invalid(`The input is not valid: ${why}.`).says("request.invalidBody");
  return new Invalid(`${field}: ${why}.`, field).says("request.invalid", { field });
}
