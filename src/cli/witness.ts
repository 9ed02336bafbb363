import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { Invalid } from "../core/errors.ts";
import { Witness, initWitness, witnessServer } from "../witness/index.ts";
import { globalOptions, print } from "./shell.ts";
import { say } from "../core/messages.ts";

/** The witness's folder: --data, or DALIL_WITNESS_DATA, or ./dalil-witness (never an archive's folder by default). */
function witnessDir(cmd: Command): string {
  return resolve(globalOptions(cmd).data ?? process.env.DALIL_WITNESS_DATA ?? "./dalil-witness");
}

function withWitness<T>(cmd: Command, fn: (w: Witness) => T): T {
  const w = new Witness(witnessDir(cmd));
  try {
    return fn(w);
  } finally {
    w.close();
  }
}

export function registerWitnessCommands(program: Command): void {
  const witness = program.command("witness").description("run a witness (C2SP tlog-witness) that cosigns consistent checkpoints of the logs it follows");

  witness
    .command("init")
    .description("create a witness in --data DIR: its Ed25519 cosigning key and its database")
    .requiredOption("--name <name>", "the witness's key name, a scheme-less URL such as witness.example.org/w1")
    .action((o: { name: string }, cmd: Command) => {
      const dir = witnessDir(cmd);
      const { vkey } = initWitness(dir, o.name);
      print(globalOptions(cmd), { dir, vkey }, `witness created in ${dir}\n${vkey}`);
    });

  witness
    .command("key")
    .description("print the witness's verifier key (vkey, type 0x04) for archives' policy files")
    .action((_o, cmd: Command) => withWitness(cmd, (w) => print(globalOptions(cmd), { name: w.cosigner.name, vkey: w.vkey }, w.vkey)));

  witness
    .command("add-log <vkey-or-file>")
    .description("follow a log: trust its verifier key (`dalil log key` on the archive) for the origin it names")
    .action((arg: string, _o, cmd: Command) =>
      withWitness(cmd, (w) => {
        const vkey = arg.includes("+") ? arg : readFileSync(arg, "utf8").trim();
        const r = w.addLog(vkey);
        print(globalOptions(cmd), r, r.added ? `now following ${r.origin}` : `already following ${r.origin} with this key`);
      }),
    );

  witness
    .command("logs")
    .description("the logs this witness follows, the size it last cosigned, and how many checkpoints it refused")
    .action((_o, cmd: Command) =>
      withWitness(cmd, (w) => {
        const logs = w.logs();
        print(globalOptions(cmd), logs, logs.map((l) => `${l.origin}  ${l.size === null ? "nothing cosigned yet" : `cosigned size ${l.size} at ${l.cosignedAt}`}${l.refusals ? `  ${l.refusals} refused (kept as evidence)` : ""}`).join("\n") || "no logs followed yet");
      }),
    );

  witness
    .command("serve")
    .description("serve POST /add-checkpoint (and GET /<origin hash>/checkpoint) until stopped")
    .option("--port <port>", "TCP port (0 picks a free one)", "7380")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .action(async (o: { port: string; host: string }, cmd: Command) => {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Invalid(say("cli.portNumber", { value: String(o.port) }), "port");
      const w = new Witness(witnessDir(cmd));
      const server = witnessServer(w);
      await new Promise<void>((ok, fail) => server.once("error", fail).listen(port, o.host, ok));
      const addr = server.address();
      const actual = typeof addr === "object" && addr ? addr.port : port;
      process.stdout.write(`witness ${w.cosigner.name} listening on http://${o.host}:${actual}\n`);
      const stop = (): void => {
        server.close(() => {
          w.close();
          process.exit(0);
        });
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      await new Promise(() => {});
    });
}
