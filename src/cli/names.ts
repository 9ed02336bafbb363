import type { Command } from "commander";
import { compareNames, formatComparison } from "../families/index.ts";
import { globalOptions, print } from "./shell.ts";

export function registerNameCommands(program: Command): void {
  const names = program.command("names").description("Arabic and Latin names: how the archive reads and compares them");
  names
    .command("compare <a> <b>")
    .description("the similarity of two names, the decision (same person / different / unsure) and why")
    .action((a: string, b: string, _o, cmd: Command) => {
      const opts = globalOptions(cmd);
      const c = compareNames(a, b);
      print(opts, c, formatComparison(c));
    });
}
