/**
 * Repeated code as a ratchet (issue 43): jscpd, a copy/paste detector installed with the dev
 * dependencies, counts the clones of six or more lines in src/ and test/ — exact copies and
 * copies that differ only in names and literal values — and each count may only go down. The
 * team's `duplicates` tool (a development tool of this machine, not installed by
 * tools/prereqs.sh) reads shapes more loosely; its counts are kept in README.md's status table.
 * Generated files (the OpenAPI client) are left out.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
const out = mkdtempSync(join(tmpdir(), "occ-jscpd-"));
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

/** Today's counts; lower them whenever a change removes clones, never raise them. */
const MOST = {
  src: { exact: 0, renamed: 114 },
  test: { exact: 5, renamed: 203 },
} as const;

interface Clone {
  readonly kind: string;
  readonly firstFile: { readonly name: string; readonly start: number };
  readonly secondFile: { readonly name: string; readonly start: number };
}

function clonesIn(folder: "src" | "test"): Clone[] {
  const dir = join(out, folder);
  execFileSync(
    join(root, "node_modules/.bin/jscpd"),
    [
      ...["--min-lines", "6", "--format", "typescript", "--ignore", "**/generated/**"],
      ...["--ignore-identifiers", "--ignore-literals", "--reporters", "json", "--silent"],
      ...["--output", dir, join(root, folder)],
    ],
    { stdio: "ignore", timeout: 60_000 },
  );
  const report: unknown = JSON.parse(readFileSync(join(dir, "jscpd-report.json"), "utf8"));
  if (typeof report !== "object" || report === null || !("duplicates" in report)) {
    throw new Error(`jscpd wrote no "duplicates" list for ${folder}/`);
  }
  const list = report.duplicates;
  if (!Array.isArray(list)) throw new Error(`jscpd's "duplicates" for ${folder}/ is not a list`);
  return list.filter((c): c is Clone => typeof c === "object" && c !== null && "kind" in c);
}

const where = (c: Clone) =>
  `${c.firstFile.name}:${String(c.firstFile.start)} ~ ${c.secondFile.name}:${String(c.secondFile.start)}`;

describe.each(["src", "test"] as const)("repeated code in %s/ (jscpd, ≥ 6 lines)", (folder) => {
  const clones = clonesIn(folder);

  it.each(["exact", "renamed"] as const)("%s clones do not grow", (kind) => {
    const found = clones.filter((c) => c.kind === kind);
    const most = MOST[folder][kind];
    expect(
      found.length,
      `${String(found.length)} ${kind} clones (at most ${String(most)}); the first: ${found.slice(0, 5).map(where).join(", ")}`,
    ).toBeLessThanOrEqual(most);
  });
});
