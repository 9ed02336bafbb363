/**
 * The witness over HTTP (node:http, nothing else: a witness is small and should stay easy to audit).
 *
 *   POST <prefix>/add-checkpoint        tlog-witness v1.0.0
 *   GET  <prefix>/<origin hash>/checkpoint   the latest cosigned checkpoint of a log (monitoring)
 *
 * No authentication: a request is only as good as the log signature on its checkpoint.
 */
import { createServer, type Server } from "node:http";
import type { Witness, WitnessAnswer } from "./witness.ts";

/** A checkpoint with 63 proof lines is a few kilobytes; anything near this is not a request. */
const MAX_BODY = 64 * 1024;

export function witnessServer(witness: Witness, prefix = ""): Server {
  const base = prefix.replace(/\/+$/, "");
  return createServer((req, res) => {
    const send = (a: WitnessAnswer): void => {
      res.writeHead(a.status, { "content-type": a.contentType, "content-length": Buffer.byteLength(a.body) });
      res.end(a.body);
    };
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (path === `${base}/add-checkpoint`) {
      if (req.method !== "POST") return send({ status: 405, body: "add-checkpoint takes a POST.\n", contentType: "text/plain; charset=utf-8" });
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          send({ status: 413, body: `A request body is at most ${MAX_BODY} bytes.\n`, contentType: "text/plain; charset=utf-8" });
          req.destroy();
        } else chunks.push(c);
      });
      req.on("end", () => {
        if (size > MAX_BODY) return;
        try {
          send(witness.addCheckpoint(Buffer.concat(chunks)));
        } catch (e) {
          send({ status: 500, body: `The witness could not process the request: ${(e as Error).message}\n`, contentType: "text/plain; charset=utf-8" });
        }
      });
      return;
    }
    const m = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/([0-9a-f]{64})/checkpoint$`).exec(path);
    if (m && req.method === "GET") return send(witness.latestFor(m[1]!));
    send({ status: 404, body: "Not a witness endpoint: POST /add-checkpoint or GET /<origin hash>/checkpoint.\n", contentType: "text/plain; charset=utf-8" });
  });
}
