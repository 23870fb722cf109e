// @ts-check
/**
 * The SQL-owner rule of `npm run lint` (issue 43): only the owners of the tables — src/store
 * (the records), src/queue (`work_items`) and src/iam (identity) — write SQL. Anywhere else
 * under src/ a string or template that reads as a statement (it begins with SELECT, INSERT
 * INTO, UPDATE … SET, DELETE FROM or WITH … AS) or names a table after FROM, JOIN, INTO or
 * UPDATE is reported: call a function of the owner instead. `temporaryExceptions` lists the
 * files (relative to src/) still waiting for their SQL to move; the list only shrinks.
 * `tables` are the table names of migrations/ (eslint.config.js reads them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

const STATEMENT =
  /^\s*(?:SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+(?:\s+AS\s+\w+)?\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\()/;

/** The tables `CREATE TABLE` defines in the `.sql` files of `dir`. */
export function tablesOf(dir) {
  const names = new Set();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sql"))) {
    const sql = readFileSync(join(dir, file), "utf8");
    for (const m of sql.matchAll(
      /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)/gi,
    )) {
      names.add(m[1].toLowerCase());
    }
  }
  return [...names].sort();
}

/** Why `text` reads as SQL, or null. */
export function sqlIn(text, tables) {
  if (STATEMENT.test(text)) return "a SQL statement";
  const named = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE)\\s+(${tables.join("|")})\\b`);
  const m = tables.length === 0 ? null : named.exec(text);
  return m === null ? null : `SQL naming the table ${m[1]}`;
}

/** @type {import("eslint").Rule.RuleModule} */
export const sqlOwnersRule = {
  meta: {
    type: "problem",
    docs: { description: "only src/store, src/queue and src/iam write SQL" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          owners: { type: "array", items: { type: "string" } },
          temporaryExceptions: { type: "array", items: { type: "string" } },
          tables: { type: "array", items: { type: "string" } },
        },
        required: ["root", "owners", "tables"],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, owners, tables, temporaryExceptions = [] } = context.options[0];
    const rel = relative(resolve(root, "src"), context.filename);
    if (rel.startsWith("..") || rel.startsWith(sep)) return {};
    const inside = rel.split(sep).join("/");
    const folder = inside.includes("/") ? inside.split("/")[0] : "";
    if (owners.includes(folder) || temporaryExceptions.includes(inside)) return {};
    const report = (node, text) => {
      const why = sqlIn(text, tables);
      if (why === null) return;
      context.report({
        node,
        message: `src/${inside} holds ${why}: only ${owners.map((o) => `src/${o}`).join(", ")} send SQL (issue 43); move the statement into the table's owner and call it from here`,
      });
    };
    return {
      Literal: (node) => {
        if (typeof node.value === "string") report(node, node.value);
      },
      TemplateLiteral: (node) => {
        report(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join("x"));
      },
    };
  },
};

export const sqlOwnersPlugin = { rules: { "sql-owners": sqlOwnersRule } };
