// The bench's HTTP client in a process of its own, as a browser is: the server's process does only the server's
// work (the client's fetch, JSON parsing and garbage were on the server's thread and heap when both shared a
// process). Argument: JSON { base, paths, runs, warmups }. Prints JSON { [path]: milliseconds[] }, each request
// timed from before it is sent until its JSON is parsed, over one keep-alive connection.
const { base, paths, runs, warmups } = JSON.parse(process.argv[2] ?? "{}");
const out = {};
for (const path of paths) {
  const get = async () => {
    const res = await globalThis.fetch(base + path);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  };
  for (let i = 0; i < warmups; i++) await get();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await get();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  out[path] = ms;
}
process.stdout.write(JSON.stringify(out));
