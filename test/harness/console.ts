/**
 * The console's real build (`npm run build:console`: Vite, console/vite.config.ts) into
 * dist/console, which `occ api` serves under /console. Run once per process; a test file that
 * serves or drives the console calls it first.
 */
import { build } from "vite";
import { fileURLToPath } from "node:url";

let built: Promise<void> | undefined;

/** Builds the console once (about 2 s). */
export function buildConsole(): Promise<void> {
  built ??= build({
    configFile: fileURLToPath(new URL("../../console/vite.config.ts", import.meta.url)),
  }).then(() => undefined);
  return built;
}
