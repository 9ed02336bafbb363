import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import type { PersonName } from "../api/types.ts";

/**
 * A person named as a reader knows them: an account by address and role, the console's operator and the software
 * as such, never by a `usr_` id. Names are asked of the server (POST /api/people/names) once per id, the ids a
 * screen shows in one render gathered into one request.
 */
const known = new Map<string, Promise<PersonName>>();
let waiting: { id: string; resolve: (p: PersonName) => void }[] = [];

function lookUp(id: string): Promise<PersonName> {
  const hit = known.get(id);
  if (hit) return hit;
  const p = new Promise<PersonName>((resolve) => {
    waiting.push({ id, resolve });
    if (waiting.length === 1) queueMicrotask(flush);
  });
  known.set(id, p);
  return p;
}

function flush(): void {
  const batch = waiting;
  waiting = [];
  api.peopleNames(batch.map((b) => b.id)).then(
    (r) => {
      const by = new Map(r.people.map((p) => [p.id, p]));
      for (const b of batch) b.resolve(by.get(b.id) ?? { id: b.id, kind: "unknown" });
    },
    () => {
      // Not allowed or not reachable: say "someone", and ask again next time rather than remember the failure.
      for (const b of batch) {
        known.delete(b.id);
        b.resolve({ id: b.id, kind: "unknown" });
      }
    },
  );
}

/** Forget what was learnt (after signing out or in as someone else). */
export function forgetPeople(): void {
  known.clear();
}

export function Person({ id }: { id: string | null | undefined }) {
  const { t } = useTranslation();
  const [p, setP] = useState<PersonName | null>(null);
  useEffect(() => {
    let alive = true;
    if (id) void lookUp(id).then((v) => alive && setP(v));
    return () => {
      alive = false;
    };
  }, [id]);
  if (!id) return null;
  if (!p) return <span className="person muted">…</span>;
  switch (p.kind) {
    case "account":
      return (
        <span className="person" data-person>
          {p.email ? <bdi dir="ltr">{p.email}</bdi> : t("people.someone")} <span className="muted">({t(`roles.${p.role}`)})</span>
        </span>
      );
    case "operator":
      return (
        <span className="person" data-person>
          {t("people.operator")} (<bdi dir="ltr">{p.login}</bdi>)
        </span>
      );
    case "system":
      return <span className="person" data-person>{t("people.system")}</span>;
    default:
      return <span className="person muted" data-person>{t("people.unknown")}</span>;
  }
}
