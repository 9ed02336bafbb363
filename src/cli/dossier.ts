import type { Command } from "commander";

/** `dalil dossier …`: cases, exhibits, versions and reports. */
export function registerDossierCommands(program: Command): void {
  void program;
}
