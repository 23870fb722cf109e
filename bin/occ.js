#!/usr/bin/env node
// The one `occ` executable. A built tree (`npm run build`) runs from dist/; a source checkout
// runs the TypeScript directly through tsx, so a fresh clone needs no build step.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const built = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
if (existsSync(built)) {
  await import(built);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(fileURLToPath(new URL("../src/cli/main.ts", import.meta.url)));
}
