import type { ReactNode } from "react";

/** One term and its value in a <dl className="pairs">, grouped in a div as HTML allows. */
export function Pair({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="pair">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
