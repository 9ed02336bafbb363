#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so a checkout works without a build step.
// Before anything touches libuv's thread pool: file reads must not queue behind image work (measured).
process.env.UV_THREADPOOL_SIZE ??= "8";
if (process.env.DALIL_CLI_BUNDLE) {
  // The test run's one-file build of these same sources (scripts/build-cli-bundle.mjs): faster to start.
  const { pathToFileURL } = await import("node:url");
  await import(pathToFileURL(process.env.DALIL_CLI_BUNDLE).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
