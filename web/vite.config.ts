import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

/**
 * The web app's build: web/src → web/dist, served by `dalil serve` from the same origin as the API.
 * `npm run dev:web` style use (vite dev server) proxies /api and /log to a running `dalil serve`
 * (DALIL_API, default http://127.0.0.1:8080).
 */
const api = process.env.DALIL_API ?? "http://127.0.0.1:8080";

/**
 * Gzip copies of text assets next to them: the server sends them to browsers that accept gzip (field links are slow).
 * Made from the files as written: in `generateBundle` a chunk's code can still hold markers that Vite replaces
 * later (the list of files a lazily loaded screen needs), and the gzip copy then differed from the file.
 */
function precompress(): Plugin {
  return {
    name: "dalil-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg|json)$/.test(name)) continue;
        const file = join(options.dir!, name);
        const bytes = readFileSync(file);
        if (bytes.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // Fonts are files (never inlined as data: URLs), so the CSP's font-src 'self' holds and they cache.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 900,
  },
  server: {
    // The archive refuses state-changing requests from other origins (CSRF): the dev server speaks as the
    // archive's own origin when it passes requests on.
    proxy: Object.fromEntries(
      ["/api", "/log"].map((prefix) => [
        prefix,
        {
          target: api,
          changeOrigin: true,
          configure: (proxy: { on(event: "proxyReq", fn: (req: { setHeader(k: string, v: string): void }) => void): void }) =>
            proxy.on("proxyReq", (req) => req.setHeader("origin", api)),
        },
      ]),
    ),
  },
});
