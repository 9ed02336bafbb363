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

/** Gzip copies of text assets next to them: the server sends them to browsers that accept gzip (field links are slow). */
function precompress(): Plugin {
  return {
    name: "dalil-precompress",
    apply: "build",
    generateBundle(_options, bundle) {
      for (const [name, out] of Object.entries(bundle)) {
        if (!/\.(js|css|svg|json)$/.test(name)) continue;
        const source = out.type === "chunk" ? out.code : out.source;
        const bytes = typeof source === "string" ? Buffer.from(source) : Buffer.from(source);
        if (bytes.length < 1024) continue;
        this.emitFile({ type: "asset", fileName: `${name}.gz`, source: gzipSync(bytes, { level: 9 }) });
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
