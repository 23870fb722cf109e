/**
 * Builds the administrator console (issue 37) into dist/console, which `occ api` serves under
 * /console (src/api/console.ts). JSX is compiled by Vite's own transform for Preact; the
 * output holds no inline script (the Content-Security-Policy forbids it).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  logLevel: "warn",
});
