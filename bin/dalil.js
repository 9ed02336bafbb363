#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so a checkout works without a build step.
// Before anything touches libuv's thread pool: file reads must not queue behind image work (measured).
process.env.UV_THREADPOOL_SIZE ??= "8";
const { register } = await import("tsx/esm/api");
register();
await import("../src/cli/main.ts");
