/**
 * `npm run lint` refuses SQL outside the owners of the tables (issue 43; rule
 * tools/eslint/sql-owners.js, owners and temporary exceptions in sql-owners.json): fixture
 * files placed (virtually) in src/ are linted with the project's configuration and what ESLint
 * reports is read back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { lint, root } from "./lint-fixture.js";

const OWNERS = JSON.parse(readFileSync(join(root, "tools/eslint/sql-owners.json"), "utf8")) as {
  readonly owners: readonly string[];
  readonly temporaryExceptions: readonly string[];
};

const RULE = "occ-sql/sql-owners";
const sqlFindings = async (path: string, code: string) =>
  (await lint(path, code)).filter((m) => m.startsWith(`${RULE}:`));

const sends = (sql: string) =>
  `export const run = (q: { query(s: string): unknown }) => q.query(${sql});\n`;

describe("the SQL-owner rule of npm run lint", () => {
  it.each([
    ["a use case reading a table", "src/services/fixture.ts", '"SELECT id FROM namespaces"'],
    ["composition counting rows", "src/main/fixture.ts", "`SELECT count(*) FROM ${'x'}`"],
    ["the HTTP layer writing the queue", "src/api/fixture.ts", '"UPDATE work_items SET x = 1"'],
    ["the worker deleting rows", "src/worker/fixture.ts", '"DELETE FROM agents WHERE id = $1"'],
    ["a CTE", "src/work/fixture.ts", '"WITH moved AS (SELECT 1) SELECT * FROM moved"'],
    ["an insert", "src/cli/fixture.ts", '"INSERT INTO principals (id) VALUES ($1)"'],
    ["a fragment naming a table", "src/services/fixture.ts", '"x JOIN bindings b ON true"'],
    [
      "a template naming a table",
      "src/main/fixture.ts",
      "`n.id IN (SELECT id FROM namespaces WHERE x = ${'y'})`",
    ],
  ])("rejects %s", async (_what, path, sql) => {
    expect(await sqlFindings(path, sends(sql))).toEqual([
      expect.stringContaining("only src/store, src/queue, src/iam send SQL"),
    ]);
  });

  it.each([
    ["the store", "src/store/fixture.ts", '"SELECT id FROM namespaces"'],
    ["the queue", "src/queue/fixture.ts", '"UPDATE work_items SET x = 1"'],
    ["IAM", "src/iam/fixture.ts", '"DELETE FROM sessions WHERE id = $1"'],
    ["a route path", "src/api/fixture.ts", '"DELETE /namespaces/:id"'],
    [
      "English that names a word like a table",
      "src/services/fixture.ts",
      '"Select the roles from a list"',
    ],
    ["a test", "test/unit/fixture.test.ts", '"SELECT id FROM namespaces"'],
  ])("accepts SQL text in %s, and text that is not SQL", async (_what, path, sql) => {
    expect(await sqlFindings(path, sends(sql))).toEqual([]);
  });

  it.each(OWNERS.temporaryExceptions)(
    "still needs the temporary exception %s (the list only shrinks)",
    async (file) => {
      const code = readFileSync(join(root, "src", file), "utf8");
      expect(await lint(join("src", file), code)).not.toContainEqual(
        expect.stringMatching(`^${RULE}:`),
      );
      expect(await sqlFindings("src/services/moved-fixture.ts", code)).not.toEqual([]);
    },
  );

  it("is part of the configuration npm run lint uses, with the tables of migrations/", async () => {
    const config = (await new ESLint({ cwd: root }).calculateConfigForFile(
      join(root, "src/services/bootstrap.ts"),
    )) as { rules: Record<string, [number, { tables: readonly string[] }]> };
    const [level, options] = config.rules[RULE] ?? [0, { tables: [] }];
    expect(level).toBe(2);
    expect(options).toMatchObject({ root, ...OWNERS });
    expect(options.tables).toEqual(
      expect.arrayContaining(["namespaces", "work_items", "sessions", "installation"]),
    );
  });
});
