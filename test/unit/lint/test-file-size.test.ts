/**
 * Issue 43 item 4: every file under test/ holds at most 400 lines, so a suite is split by
 * subject before it grows past what a reader takes in (src/ has its own 300, in eslint).
 * Run as a test so it cannot regress: a longer file fails here with its name and its count.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
const MOST_LINES = 400;

/**
 * Files allowed over the limit: none now that the store suites are split by subject. Only
 * generated or fixture data would be named here, each with the reason.
 */
const NOT_YET_SPLIT: readonly string[] = [];

/** Lines of a text as an editor counts them (a last line without a newline counts). */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function sourceFilesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|js|mjs|cjs|tf)$/.test(f))
    .map((f) => join(folder, f))
    .sort();
}

describe("the size of test files", () => {
  it(`holds every file under test/ to ${MOST_LINES} lines`, () => {
    const tooLong = sourceFilesUnder("test")
      .filter((file) => !NOT_YET_SPLIT.includes(file))
      .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), "utf8")) }))
      .filter(({ lines }) => lines > MOST_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines (split it by subject)`);
    expect(tooLong).toEqual([]);
  });

  it("counts lines as an editor does", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a\n".repeat(MOST_LINES))).toBe(MOST_LINES);
    expect(lineCount(`${"a\n".repeat(MOST_LINES)}b`)).toBe(MOST_LINES + 1);
  });
});
