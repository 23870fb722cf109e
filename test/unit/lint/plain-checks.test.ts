/**
 * The plain checks of the architecture (issue 43), run as tests so they cannot regress: what
 * src/contract and src/api import, and how many type assertions (`as`, not `as const`) src/
 * holds. The assertion count is a ratchet: its bound only goes down, to the goal of 30.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
const src = join(root, "src");

function filesUnder(folder: string): string[] {
  return readdirSync(join(src, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(src, folder, f))
    .sort();
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);

/** The top folders of src/ that `file` imports relatively (its own folder left out). */
function foldersImportedBy(file: string): Set<string> {
  const own = relative(src, file).split("/")[0];
  const found = new Set<string>();
  for (const statement of parse(file).statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const spec = statement.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) continue;
    const folder = relative(src, resolve(dirname(file), spec.text)).split("/")[0] ?? "";
    if (folder !== own) found.add(folder);
  }
  return found;
}

/** Type assertions other than `as const` in one parsed file. */
function assertionsIn(sf: ts.SourceFile): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst =
        ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === "const";
      if (!isConst) count += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return count;
}

/** Type assertions in src/ today; the goal is 30. Lower it whenever a change removes some. */
const MOST_ASSERTIONS = 57;

describe("the plain checks of the architecture", () => {
  it("src/contract imports only src/domain", () => {
    const outside = filesUnder("contract").flatMap((file) =>
      [...foldersImportedBy(file)]
        .filter((folder) => folder !== "domain")
        .map((folder) => `${relative(src, file)} → src/${folder}`),
    );
    expect(outside).toEqual([]);
  });

  it("src/api imports only src/services, src/contract and src/domain", () => {
    const outside = filesUnder("api").flatMap((file) =>
      [...foldersImportedBy(file)]
        .filter((folder) => !["services", "contract", "domain"].includes(folder))
        .map((folder) => `${relative(src, file)} → src/${folder}`),
    );
    expect(outside).toEqual([]);
  });

  it(`src/ holds at most ${MOST_ASSERTIONS} type assertions besides \`as const\``, () => {
    const total = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => filesUnder(entry.name))
      .reduce((sum, file) => sum + assertionsIn(parse(file)), 0);
    expect(total).toBeLessThanOrEqual(MOST_ASSERTIONS);
  });

  it("counts an assertion and leaves `as const` alone", () => {
    const count = (code: string) =>
      assertionsIn(ts.createSourceFile("sample.ts", code, ts.ScriptTarget.Latest, true));
    expect(count('const a = ["x"] as const;\nconst b = a as unknown as string;')).toBe(2);
    expect(count("const c = <string>(a as unknown);")).toBe(2);
  });
});
