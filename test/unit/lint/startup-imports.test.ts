/**
 * What every `occ` process loads before it reads its arguments: the static import graph of the
 * CLI's entry (`import type` leaves no import behind; `import()` is loaded only when reached).
 * gRPC (the OpenShell gateway) and PGlite (the embedded database of `occ dev up`) are loaded
 * only by the code that uses them, so `occ api`, `occ worker` and the CLI's commands do not pay
 * for them in memory or start-up time.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The packages no `occ` process may load before it needs them. */
const HEAVY = ["@grpc/grpc-js", "@grpc/proto-loader", "@electric-sql/pglite"];
const src = join(import.meta.dirname, "../../../src");

/** Module specifiers `file` imports at load time (type-only imports and `import()` left out). */
function staticImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const s of sf.statements) {
    const typeOnly = ts.isImportDeclaration(s)
      ? s.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword
      : ts.isExportDeclaration(s) && s.isTypeOnly;
    const spec = ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ? s.moduleSpecifier : null;
    if (!typeOnly && spec && ts.isStringLiteral(spec)) out.push(spec.text);
  }
  return out;
}

/** Every source file reachable from `entry` at load time, and the packages each imports. */
function loadGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = [join(src, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (graph.has(relative(src, file))) continue;
    const specs = staticImports(file);
    graph.set(
      relative(src, file),
      specs.filter((s) => !s.startsWith(".")),
    );
    for (const s of specs.filter((x) => x.startsWith("."))) {
      const target = resolve(dirname(file), s.replace(/\.js$/, ".ts"));
      if (existsSync(target)) queue.push(target);
    }
  }
  return graph;
}

describe("what an occ process loads at start", () => {
  const graph = loadGraph("cli/main.ts");

  it("reaches the processes' code and their packages (the walk follows the graph)", () => {
    expect(graph.has("drivers/runtime.ts")).toBe(true);
    expect(graph.has("api/app.ts")).toBe(true);
    const packages = new Set([...graph.values()].flat());
    expect(packages).toContain("pg");
    expect(packages).toContain("fastify");
  });

  it("loads neither gRPC nor PGlite: only the code that uses them does, when it runs", () => {
    const offenders = [...graph]
      .flatMap(([file, packages]) => packages.filter((p) => HEAVY.includes(p)).map(() => file))
      .sort();
    expect(offenders).toEqual([]);
    // The modules that do import them are reached by `import()` only.
    for (const lazy of ["drivers/openshell/gateway-client.ts", "store/pglite-db.ts"]) {
      expect(graph.has(lazy), lazy).toBe(false);
    }
  });
});
