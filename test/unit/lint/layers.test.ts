/**
 * `npm run lint` enforces the layer picture of the README (eslint.config.js `LAYERS`, rule
 * tools/eslint/layers.js) and `max-lines` 300 under src/: these lint the project's own
 * configuration against fixture files placed (virtually) in src/ and read back what ESLint
 * reports (lint-fixture.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { lint, root } from "./lint-fixture.js";

const TABLE = JSON.parse(readFileSync(join(root, "tools/eslint/layers.json"), "utf8")) as {
  readonly layers: Record<string, readonly string[]>;
  readonly importedOnlyBy: Record<string, readonly string[]>;
  readonly implementations: Record<string, readonly string[]>;
};
const LAYERS = TABLE.layers;

const imports = (from: string) => `import * as m from "${from}";\nexport const x = m;\n`;

describe("the layer rule of npm run lint", () => {
  it.each([
    [
      "the domain importing the HTTP layer",
      "src/domain/placement/fixture.ts",
      "../../api/app.js",
      "src/domain may not import src/api",
    ],
    [
      "the store importing the queue",
      "src/store/fixture.ts",
      "../queue/index.js",
      "src/store may not import src/queue",
    ],
    [
      "a driver importing the worker",
      "src/drivers/kubernetes/fixture.ts",
      "../../worker/worker.js",
      "src/drivers may not import src/worker",
    ],
    [
      "the worker importing process composition",
      "src/worker/fixture.ts",
      "../main/processes.js",
      "src/worker may not import src/main",
    ],
    [
      "the CLI importing the HTTP layer",
      "src/cli/fixture.ts",
      "../api/app.js",
      "src/cli may not import src/api",
    ],
    [
      "product code importing the tests",
      "src/queue/fixture.ts",
      "../../test/harness/db.js",
      "outside src/",
    ],
    [
      "a folder missing from the table",
      "src/newfolder/fixture.ts",
      "../domain/index.js",
      "src/newfolder is not in the layer table",
    ],
    [
      "process composition other than the server's start importing the HTTP layer",
      "src/main/compute-fixture.ts",
      "../api/app.js",
      "only src/main/processes.ts may import src/api",
    ],
    [
      "the worker importing the Kubernetes Event implementation",
      "src/worker/fixture.ts",
      "../drivers/kubernetes/events.js",
      "src/worker may not import src/drivers/kubernetes, an implementation",
    ],
    [
      "a use case importing the OpenShell driver",
      "src/services/agents/fixture.ts",
      "../../drivers/openshell/service.js",
      "src/services may not import src/drivers/openshell, an implementation",
    ],
    [
      "the contract importing storage",
      "src/contract/fixture.ts",
      "../store/namespaces.js",
      "src/contract may not import src/store",
    ],
  ])("rejects %s", async (_what, path, from, message) => {
    const messages = await lint(path, imports(from));
    expect(messages.filter((m) => m.startsWith("occ/layers:"))).toEqual([
      expect.stringContaining(message),
    ]);
  });

  it.each([
    ["a driver importing the domain", "src/drivers/kubernetes/fixture.ts", "../../domain/index.js"],
    ["the worker importing the queue", "src/worker/fixture.ts", "../queue/index.js"],
    ["a file importing its own folder", "src/domain/placement/fixture.ts", "../input/result.js"],
    ["the composition root that starts the server", "src/main/processes.ts", "../api/server.js"],
    ["a package", "src/domain/fixture.ts", "node:path"],
    ["the worker importing the Event port", "src/worker/fixture.ts", "../drivers/events.js"],
    ["composition importing a driver", "src/main/fixture.ts", "../drivers/kubernetes/events.js"],
    ["the CLI importing a driver", "src/cli/fixture.ts", "../drivers/openshell/service.js"],
    ["a driver importing its sibling", "src/drivers/fixture.ts", "./kubernetes/events.js"],
  ])("accepts %s", async (_what, path, from) => {
    expect(await lint(path, imports(from))).toEqual([]);
  });

  it("leaves tests and benchmarks free to import any layer", async () => {
    expect(await lint("test/unit/fixture.test.ts", imports("../../src/api/app.js"))).toEqual([]);
  });

  it("names every top folder of src/ in the table, each importing only folders of the table", () => {
    const folders = readdirSync(join(root, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(
      Object.keys(LAYERS)
        .filter((f) => folders.includes(f))
        .sort(),
    ).toEqual(folders);
    for (const may of Object.values(LAYERS))
      for (const f of may) expect(Object.keys(LAYERS)).toContain(f);
  });

  it("holds every file under src/ to 300 lines", async () => {
    expect(await lint("src/store/fixture.ts", "export const x = 1;\n".repeat(300))).toEqual([]);
    expect(await lint("src/store/fixture.ts", "export const x = 1;\n".repeat(301))).toEqual([
      "max-lines: File has too many lines (301). Maximum allowed is 300.",
    ]);
  });

  it("is part of the configuration npm run lint uses for every file under src/", async () => {
    const config = (await new ESLint({ cwd: root }).calculateConfigForFile(
      join(root, "src/domain/index.ts"),
    )) as { rules: Record<string, unknown> };
    expect(config.rules["occ/layers"]).toEqual([
      2,
      {
        root,
        layers: LAYERS,
        importedOnlyBy: TABLE.importedOnlyBy,
        implementations: TABLE.implementations,
      },
    ]);
    expect(config.rules["max-lines"]).toEqual([2, { max: 300 }]);
    expect(readFileSync(join(root, "package.json"), "utf8")).toContain('"lint": "eslint ."');
  });

  it("is the table the README's architecture section draws, row for row", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| `src\/([a-z]+)\/` +\|[^|]*\| ([^|]*?) *\|$/gm)].map(
      (m) => [m[1], m[2] === "nothing" ? [] : (m[2] ?? "").split(", ")] as const,
    );
    expect(Object.fromEntries(rows)).toEqual(LAYERS);
  });
});
