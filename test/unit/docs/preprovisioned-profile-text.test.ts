import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/helm.js";

/**
 * Seed 001: "The chart describes this profile as a closed single-cluster OpenShell canary." The
 * operator reads that where they set the value: the chart's README, the comment on
 * `preprovisionedNamespace` in values.yaml, and the runbook (docs/operations.md).
 */
const PHRASE = "closed single-cluster OpenShell canary";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
/** Prose as read: emphasis and line breaks do not split the phrase. */
const prose = (text: string) => text.replace(/\*\*/g, "").replace(/\s+/g, " ");

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const next = markdown.indexOf("\n## ", start + heading.length + 2);
  return markdown.slice(start, next === -1 ? undefined : next);
}

describe("the preprovisioned profile is called what seed 001 calls it", () => {
  it("the chart README's profile section", () => {
    const readme = read("deploy/helm/openclaw-enterprise/README.md");
    expect(prose(section(readme, "## The preprovisioned-namespace profile"))).toContain(PHRASE);
  });

  it("the values.yaml comment on preprovisionedNamespace", () => {
    const lines = read("deploy/helm/openclaw-enterprise/values.yaml").split("\n");
    const at = lines.findIndex((l) => l.startsWith("preprovisionedNamespace:"));
    expect(at).toBeGreaterThan(0);
    const comment: string[] = [];
    for (let i = at - 1; i >= 0 && (lines[i] ?? "").startsWith("#"); i--) {
      comment.unshift((lines[i] ?? "").replace(/^#\s?/, ""));
    }
    expect(prose(comment.join("\n"))).toContain(PHRASE);
  });

  it("docs/operations.md, Prepare a preprovisioned namespace", () => {
    const doc = read("docs/operations.md");
    expect(prose(section(doc, "## Prepare a preprovisioned namespace"))).toContain(PHRASE);
  });
});
