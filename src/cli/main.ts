import { Command, CommanderError } from "commander";
import { SOFTWARE } from "../core/version.ts";
import { registerArchiveCommands } from "./archive.ts";
import { registerServeCommands } from "./serve.ts";
import { registerJobCommands } from "./jobs.ts";
import { registerLogCommands } from "./log.ts";
import { registerNameCommands } from "./names.ts";
import { registerUserCommands } from "./users.ts";
import { registerSourceCommands } from "./sources.ts";
import { registerKeyCommands } from "./keys.ts";
import { registerCatalogueCommands } from "./catalogue.ts";
import { registerFamiliesCommands } from "./families.ts";
import { registerReviewCommands } from "./review.ts";
import { registerPackageCommands } from "./package.ts";
import { registerDossierCommands } from "./dossier.ts";
import { registerWitnessCommands } from "./witness.ts";
import { registerAuthenticityCommands } from "./authenticity.ts";
import { registerExhibitionCommands } from "./exhibition.ts";
import { registerMirrorCommands } from "./mirror.ts";
import { reportError } from "./shell.ts";
import { growHeapInLargeSteps } from "../core/heap.ts";

// Every dalil process, the server and the workers too: long steps otherwise spend their time in full collections.
growHeapInLargeSteps();

const program = new Command("dalil")
  .description("dalil — an archive for photographic evidence of deaths in detention")
  .version(SOFTWARE.version)
  .option("--data <dir>", "the archive's data directory (env DALIL_DATA, default ./dalil-data)")
  .option("--json", "print results as JSON")
  .exitOverride()
  .showHelpAfterError();

registerArchiveCommands(program);
registerServeCommands(program);
registerJobCommands(program);
registerLogCommands(program);
registerNameCommands(program);
registerUserCommands(program);
registerSourceCommands(program);
registerKeyCommands(program);
registerCatalogueCommands(program);
registerFamiliesCommands(program);
registerReviewCommands(program);
registerPackageCommands(program);
registerDossierCommands(program);
registerWitnessCommands(program);
registerAuthenticityCommands(program);
registerExhibitionCommands(program);
registerMirrorCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    process.exitCode = reportError(err);
  }
}
