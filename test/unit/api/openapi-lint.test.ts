/**
 * The OpenAPI document as a client generator's user lints it: the served `/openapi.json`,
 * written to a file, through the real Spectral (`spectral:oas`, `.spectral.yaml`) and Redocly
 * (`recommended`, `redocly.yaml`) command lines. Both must report nothing, not even a warning.
 * A failure first names each operation missing what every route declares, and how to add it.
 * The CLI's generated client (src/cli/generated) must be what this document generates now.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { API_TAGS } from "../../../src/api/schemas.js";
import {
  clientTypesOf,
  GENERATED_CLIENT,
  openApiDocument,
  REGENERATE,
} from "../../../tools/openapi-client.js";
import { REPO_ROOT } from "../../harness/helm.js";
import { call, startApi } from "../../harness/api-app.js";

const run = promisify(execFile);
const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);

interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: string[];
  readonly security?: unknown[];
  readonly requestBody?: { content?: Record<string, { example?: unknown; examples?: unknown }> };
}
type Document = { paths: Record<string, Record<string, Operation>> };

const fx = await startApi();
const dir = await mkdtemp(join(tmpdir(), "occ-openapi-"));
afterAll(async () => {
  await fx.close();
  await rm(dir, { recursive: true, force: true });
});
const served = await call(fx.app, "GET", "/openapi.json");
const doc = served.body as Document;
const file = join(dir, "openapi.json");
await writeFile(file, served.text);

/** One line per operation missing something every route declares, saying where to add it. */
function incompleteOperations(d: Document): string[] {
  const declared = new Set(Object.keys(API_TAGS));
  const seen = new Map<string, string>();
  const lines: string[] = [];
  for (const [path, methods] of Object.entries(d.paths)) {
    for (const [method, o] of Object.entries(methods)) {
      const at = `${method.toUpperCase()} ${path}`;
      const missing: string[] = [];
      if (o.operationId === undefined) missing.push("operationId");
      else if (seen.has(o.operationId))
        missing.push(`a unique operationId (${o.operationId} is also ${seen.get(o.operationId)})`);
      else seen.set(o.operationId, at);
      if (o.summary === undefined) missing.push("summary");
      if (o.description === undefined) missing.push("description");
      if (o.tags === undefined || o.tags.length === 0) missing.push("tags");
      for (const t of o.tags ?? [])
        if (!declared.has(t)) missing.push(`a declared tag (${t} is not)`);
      if (o.security === undefined) missing.push("security");
      const media = Object.values(o.requestBody?.content ?? {});
      if (media.some((m) => m.example === undefined && m.examples === undefined))
        missing.push("a request body example");
      if (missing.length > 0) lines.push(`${at}: missing ${missing.join(", ")}`);
    }
  }
  return lines;
}

const HOW_TO_FIX =
  "Fix in the route's schema: `...op(operationId, summary, description)` (src/api/schemas.ts; " +
  "operationId stable, camelCase, unique), `tags` from API_TAGS (a new tag is declared there, with " +
  "its description), `security` (or `noSecurity` on a public route), an `examples` array on the " +
  "body schema (src/contract).";

/** No telemetry, no update check: the linters only read the file. */
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };

/** A linter's exit code is non-zero when it finds something; its report is still on stdout. */
async function lint(cmd: string, args: string[]): Promise<string> {
  try {
    return (await run(bin(cmd), args, { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 })).stdout;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    if (out === undefined || out === "") throw err;
    return out;
  }
}

describe("the OpenAPI document is fit for client generators", () => {
  it("declares an operationId, summary, description, declared tags and security everywhere", () => {
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20);
    expect(incompleteOperations(doc), HOW_TO_FIX).toEqual([]);
  });

  it("Spectral (spectral:oas) finds no error and no warning", async () => {
    const out = await lint("spectral", ["lint", "-r", ".spectral.yaml", "-f", "json", "-q", file]);
    const findings = (JSON.parse(out.slice(out.indexOf("["))) as SpectralResult[]).map(
      (r) => `${r.code} at ${r.path.join(".")}: ${r.message}`,
    );
    expect(findings, `${incompleteOperations(doc).join("\n")}\n${HOW_TO_FIX}`).toEqual([]);
  });

  it("Redocly (recommended) finds no error and no warning", async () => {
    const out = await lint("redocly", [
      "lint",
      "--config",
      "redocly.yaml",
      "--format",
      "json",
      file,
    ]);
    const report = JSON.parse(out.slice(out.indexOf("{"))) as RedoclyReport;
    const findings = report.problems.map(
      (p) =>
        `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`,
    );
    expect(findings, `${incompleteOperations(doc).join("\n")}\n${HOW_TO_FIX}`).toEqual([]);
  });
});

describe("the CLI's generated client", () => {
  it("is what the served document generates now (npm run generate:client)", async () => {
    // Generated from the document of an API with single sign-on configured: the one served
    // here, and the /auth/oidc routes the CLI's `login --provider` calls.
    const document = await openApiDocument(fx.raw);
    const withSignIn = document as unknown as Document;
    const added = Object.keys(withSignIn.paths)
      .filter((p) => !(p in doc.paths))
      .sort();
    expect(added).toEqual(["/auth/oidc/callback", "/auth/oidc/cli-token", "/auth/oidc/start"]);
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(withSignIn.paths[path], path).toEqual(item);
    }
    const committed = await readFile(GENERATED_CLIENT, "utf8");
    const now = await clientTypesOf(document);
    const [was, is] = [committed.split("\n"), now.split("\n")];
    const line = was.findIndex((l, i) => l !== is[i]);
    const first = `line ${line + 1}: ${JSON.stringify(was[line])}, now ${JSON.stringify(is[line])}`;
    expect(committed === now, `${GENERATED_CLIENT} is stale (${first}): run ${REGENERATE}`).toBe(
      true,
    );
  });
});

interface SpectralResult {
  readonly code: string;
  readonly message: string;
  readonly path: (string | number)[];
}
interface RedoclyReport {
  readonly problems: {
    readonly ruleId: string;
    readonly severity: string;
    readonly message: string;
    readonly location: { readonly pointer: string }[];
  }[];
}
