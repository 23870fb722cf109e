import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./helm.js";

/**
 * The previous release (the git ref in deploy/previous-release) as tools/previous-release.sh
 * built it with that tree's own image build: its image archive and tag, and its /app as in the
 * image, which also runs on the host (`node <app>/bin/occ.js api`).
 */
export interface PreviousRelease {
  /** The ref as the file names it, and the commit it resolves to. */
  readonly ref: string;
  readonly commit: string;
  /** `occ:previous-<12 hex>`. */
  readonly tag: string;
  /** The docker-archive for `ctr images import`. */
  readonly archive: string;
  /** The release's /app: dist/, bin/occ.js, migrations/, production node_modules/, the chart. */
  readonly app: string;
  /** `<app>/bin/occ.js`, the `occ` executable of the release. */
  readonly entry: string;
  /** The release's chart, as shipped in its image. */
  readonly chart: string;
  /** The file names of its migrations, sorted. */
  readonly migrations: readonly string[];
}

const IMAGES = process.env.OCC_IMAGE_DIR ?? join(REPO_ROOT, ".image");

/** The ref deploy/previous-release names (comments and blank lines ignored). */
export function previousReleaseRef(): string {
  const text = readFileSync(join(REPO_ROOT, "deploy", "previous-release"), "utf8");
  const ref = text.replace(/#.*$/gm, "").trim();
  if (ref === "") throw new Error("deploy/previous-release names no git ref");
  return ref;
}

/** The previous release as built; fails naming the script when it is not built yet. */
export function previousRelease(): PreviousRelease {
  const ref = previousReleaseRef();
  const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
    cwd: REPO_ROOT,
  })
    .toString()
    .trim();
  const base = join(IMAGES, "previous", commit);
  const tagFile = join(base, "tag");
  if (!existsSync(tagFile)) {
    throw new Error(
      `the previous release ${ref} is not built: run \`bash tools/previous-release.sh\``,
    );
  }
  const app = join(base, "image", "app");
  return {
    ref,
    commit,
    tag: readFileSync(tagFile, "utf8").trim(),
    archive: join(base, "image", "occ.tar"),
    app,
    entry: join(app, "bin", "occ.js"),
    chart: join(app, "deploy", "helm", "openclaw-enterprise"),
    migrations: readdirSync(join(app, "migrations"))
      .filter((f) => f.endsWith(".sql"))
      .sort(),
  };
}

/**
 * Runs tools/previous-release.sh (a no-op when its cache holds the build) and returns the
 * release; the script's output is in the error when it fails.
 */
export async function buildPreviousRelease(): Promise<PreviousRelease> {
  const started = Date.now();
  await promisify(execFile)("bash", [join(REPO_ROOT, "tools", "previous-release.sh")], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: unknown) => {
    const e = err as { stdout?: string; stderr?: string; message?: string };
    throw new Error(
      `tools/previous-release.sh failed: ${e.message ?? ""}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
    );
  });
  const release = previousRelease();
  console.log(`[previous-release] ${release.tag} ready in ${Date.now() - started} ms`);
  return release;
}
