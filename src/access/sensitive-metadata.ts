import type { Actor } from "../core/actor.ts";
import { isSensitiveField } from "../core/sensitive-fields.ts";
import type { Policy } from "./policy.ts";

/** Hiding sensitive fields from roles without `metadata.sensitive`; which fields they are is core/sensitive-fields.ts. */
export { isSensitiveField };

/** A copy of the value with every sensitive field removed, at any depth. */
export function withoutSensitiveFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutSensitiveFields(v as unknown)) as T;
  if (value && typeof value === "object" && !Buffer.isBuffer(value) && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!isSensitiveField(k)) out[k] = withoutSensitiveFields(v);
    }
    return out as T;
  }
  return value;
}

/** Metadata as this actor may see it. */
export function metadataFor<T>(policy: Policy, actor: Actor, metadata: T): T {
  return policy.allows(actor, "metadata.sensitive") ? metadata : withoutSensitiveFields(metadata);
}
