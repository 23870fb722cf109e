/**
 * The console's real build (`npm run build:console`: Vite, console/vite.config.ts) into
 * dist/console, which `occ api` serves under /console. A test file that serves or drives the
 * console calls it first.
 *
 * Vite empties its output directory before writing, so two test files building at once (the
 * unit and integration projects run side by side) would serve each other a half-written
 * console. The build therefore runs only when dist/console is older than a file of console/ or src/contract —
 * never in the suite, where tools/test.sh builds it once before the tests start.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const SOURCES = fileURLToPath(new URL("../../console", import.meta.url));
/** What the bundle is made of: the console's own files and the contract it imports. */
const INPUTS = [SOURCES, fileURLToPath(new URL("../../src/contract", import.meta.url))];
const BUILT = fileURLToPath(new URL("../../dist/console/index.html", import.meta.url));

let built: Promise<void> | undefined;

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? await newestSource(path) : (await stat(path)).mtimeMs;
    newest = Math.max(newest, t);
  }
  return newest;
}

async function upToDate(): Promise<boolean> {
  const builtAt = await stat(BUILT).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const newest = Math.max(...(await Promise.all(INPUTS.map(newestSource))));
  return builtAt > newest;
}

/** Builds the console once per process (about 2 s), unless dist/console is up to date. */
export function buildConsole(): Promise<void> {
  built ??= upToDate().then(async (fresh) => {
    if (fresh) return;
    await build({ configFile: join(SOURCES, "vite.config.ts") });
  });
  return built;
}
