import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { allDocBlocks, commandsOf, docBlocks } from "../../harness/doc-blocks.js";
import { REPO_ROOT } from "../../harness/helm.js";

/**
 * Every fenced command of the operator documentation is run by a test, checked both ways (see
 * test/harness/doc-blocks.ts): a block gains no command without a test that runs it, and a test
 * never runs a block the documents no longer hold.
 */

const COMMAND_LANGS = new Set(["sh", "bash", "shell", "console"]);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** `documentedBlock("<id>")` calls in the test files: file → IDs. */
function requestedIds(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const path of walk(join(REPO_ROOT, "test")).filter((p) => p.endsWith(".ts"))) {
    const ids = [...readFileSync(path, "utf8").matchAll(/documentedBlock\("([a-z0-9-]+)"\)/g)].map(
      (m) => m[1] ?? "",
    );
    if (ids.length > 0) out.set(relative(REPO_ROOT, path), ids);
  }
  return out;
}

const blocks = allDocBlocks();

describe("the documents' fenced commands", () => {
  it("finds the blocks it checks", () => {
    expect(blocks.filter((b) => b.file === "docs/operations.md").length).toBeGreaterThan(5);
    expect(commandsOf("a \\\n  b\n# c\n\nd # e")).toEqual(["a b", "d # e"]);
  });

  it("every fenced block says its language (`text` for what is not a command)", () => {
    const unlabelled = blocks.filter((b) => b.lang === "").map((b) => `${b.file}:${b.line}`);
    expect(unlabelled).toEqual([]);
  });

  it("every command block is tagged with a unique ID and what runs it", () => {
    const untagged = blocks
      .filter((b) => COMMAND_LANGS.has(b.lang) && (b.id === undefined || b.runBy.length === 0))
      .map((b) => `${b.file}:${b.line}`);
    expect(untagged).toEqual([]);
    const ids = blocks.flatMap((b) => (b.id === undefined ? [] : [b.id]));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const taggedText = blocks
      .filter((b) => b.id !== undefined && !COMMAND_LANGS.has(b.lang))
      .map((b) => `${b.file}:${b.line}`);
    expect(taggedText).toEqual([]);
  });

  it("every tag names a test that runs that block (developer commands: an existing script)", () => {
    const requested = requestedIds();
    const problems: string[] = [];
    for (const b of blocks.filter((x) => x.id !== undefined)) {
      for (const file of b.runBy) {
        const where = `${b.file}:${b.line} (${b.id ?? ""})`;
        if (!existsSync(join(REPO_ROOT, file))) {
          problems.push(`${where}: ${file} does not exist`);
        } else if (!b.developer && !(requested.get(file) ?? []).includes(b.id ?? "")) {
          problems.push(`${where}: ${file} never calls documentedBlock("${b.id ?? ""}")`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("a developer command names only npm scripts that exist", () => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const problems: string[] = [];
    for (const b of blocks.filter((x) => x.developer)) {
      for (const command of b.commands.flatMap((c) => c.replace(/ #.*$/, "").split("&&"))) {
        const words = command.trim().split(/\s+/);
        while (/^[A-Z_]+=/.test(words[0] ?? "")) words.shift();
        if (words[0] !== "npm") problems.push(`${b.id ?? ""}: "${command}" is not an npm command`);
        const script = words[1] === "run" ? words[2] : words[1];
        if (script !== "ci" && scripts[script ?? ""] === undefined) {
          problems.push(`${b.id ?? ""}: no npm script "${script ?? ""}"`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("every block a test asks for is in the documents, tagged with that test", () => {
    const problems: string[] = [];
    for (const [file, ids] of requestedIds()) {
      for (const id of ids) {
        const block = blocks.find((b) => b.id === id);
        if (block === undefined) problems.push(`${file}: no documented block ${id}`);
        else if (!block.runBy.includes(file)) {
          problems.push(`${file}: block ${id} (${block.file}:${block.line}) does not name it`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("reads each document's blocks in order", () => {
    const lines = docBlocks("docs/operations.md").map((b) => b.line);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
  });
});
