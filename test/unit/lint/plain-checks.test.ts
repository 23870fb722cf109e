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
const MOST_ASSERTIONS = 28;

/**
 * Files outside the owners still sending SQL, until the pass contract's rewrite moves it
 * (tools/eslint/sql-owners.json, the same list the lint rule exempts).
 */
const SQL_EXCEPTIONS = (
  JSON.parse(readFileSync(join(root, "tools/eslint/sql-owners.json"), "utf8")) as {
    readonly temporaryExceptions: readonly string[];
  }
).temporaryExceptions;

/**
 * Files outside src/iam writing identity tables: none. The Namespace tombstone's policy removal
 * is IAM's (iam/namespace-policy.ts), composed into the teardown transaction by the worker.
 */
const IDENTITY_WRITERS_OUTSIDE_IAM: readonly string[] = [];

/** The adapters implementing the database port's generic `query` (store/db.ts declares it). */
const QUERY_ADAPTERS = ["store/guarded-db.ts", "store/pg-db.ts", "store/pglite-db.ts"];

const allFiles = () =>
  readdirSync(src, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => filesUnder(entry.name));

/** `grep -rlE <pattern> src`, as paths relative to src/. */
const filesMatching = (pattern: RegExp) =>
  allFiles()
    .filter((file) => pattern.test(readFileSync(file, "utf8")))
    .map((file) => relative(src, file));

/** Calls `….query<…>(…)`: a row type asserted by a type argument instead of decoded. */
function typedQueries(sf: ts.SourceFile): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.typeArguments !== undefined &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "query"
    ) {
      count += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return count;
}

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
    const total = allFiles().reduce((sum, file) => sum + assertionsIn(parse(file)), 0);
    expect(total).toBeLessThanOrEqual(MOST_ASSERTIONS);
  });

  it("only src/store sends SQL on namespaces, only src/queue on work_items (and the exceptions)", () => {
    const outside = (pattern: RegExp, owner: string) =>
      filesMatching(pattern).filter((f) => !f.startsWith(`${owner}/`));
    const exempt = (files: readonly string[]) => files.filter((f) => SQL_EXCEPTIONS.includes(f));
    const namespaces = outside(/(FROM|JOIN|UPDATE|INTO) namespaces\b/, "store");
    expect(namespaces).toEqual(exempt(namespaces));
    const workItems = outside(/work_items/, "queue");
    expect(workItems).toEqual(exempt(workItems));
  });

  it("only src/iam sends SQL on the identity tables (and the files still listed)", () => {
    const identity = filesMatching(
      /(FROM|JOIN|UPDATE|INTO) (principals|bindings|roles|role_permissions|restrictions|api_keys|sessions|password_credentials|external_identities|group_bindings|oidc_requests|oidc_cli_handoffs|session_signing_key)\b/,
    ).filter((f) => !f.startsWith("iam/"));
    expect(identity).toEqual(IDENTITY_WRITERS_OUTSIDE_IAM);
  });

  it("decodes every row: no query<Row> outside the adapters and the exceptions", () => {
    const typed = allFiles()
      .filter((file) => typedQueries(parse(file)) > 0)
      .map((file) => relative(src, file))
      .filter((f) => !QUERY_ADAPTERS.includes(f));
    expect(typed.filter((f) => !SQL_EXCEPTIONS.includes(f))).toEqual([]);
    const count = (code: string) =>
      typedQueries(ts.createSourceFile("sample.ts", code, ts.ScriptTarget.Latest, true));
    expect(count("q.query<{ id: string }>('x'); q.query('y'); other<T>();")).toBe(1);
  });

  it("counts an assertion and leaves `as const` alone", () => {
    const count = (code: string) =>
      assertionsIn(ts.createSourceFile("sample.ts", code, ts.ScriptTarget.Latest, true));
    expect(count('const a = ["x"] as const;\nconst b = a as unknown as string;')).toBe(2);
    expect(count("const c = <string>(a as unknown);")).toBe(2);
  });
});
