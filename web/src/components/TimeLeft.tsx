import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { TimeLeft as Estimate } from "../../../src/core/time-left.ts";
import { useFormat } from "../app/prefs.tsx";

/**
 * "About 12 minutes left" beside a job's progress bar, judged from how fast the job has gone over the last
 * minute of the page's polling (the same estimate the console shows). Nothing until there is enough to judge by.
 */
export function TimeLeft({ done, total }: { done: number; total: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const estimate = useRef(new Estimate());
  const lastDone = useRef<number | null>(null);
  if (lastDone.current !== done) {
    estimate.current.observe(done, performance.now());
    lastDone.current = done;
  }
  const seconds = done < total ? estimate.current.seconds(total) : null;
  if (seconds === null) return null;
  return <span className="muted small time-left">{t("common.timeLeft", { time: fmt.duration(seconds) })}</span>;
}
