// A test reporter that writes one JSON line per finished test: when it ended, its file, its name, how deep it is
// and how long it took. `DALIL_TEST_TIMES=out.jsonl node scripts/run-tests.mjs` writes it beside the TAP output, to
// see where a run's time goes file by file (node's TAP does not say which file a test came from).
export default async function* testTimes(source) {
  for await (const ev of source) {
    if (ev.type !== "test:pass" && ev.type !== "test:fail") continue;
    const d = ev.data;
    yield `${JSON.stringify({ t: Date.now(), file: d.file, name: d.name, nesting: d.nesting, ms: d.details?.duration_ms, ok: ev.type === "test:pass" })}\n`;
  }
}
