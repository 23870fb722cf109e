import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

/**
 * Runs the real helm (`.tools/bin/helm`, built by tools/build-cluster-tools.sh) against the
 * chart in deploy/helm/openclaw-enterprise, and parses what it renders.
 */
export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const HELM = join(REPO_ROOT, ".tools", "bin", "helm");
export const CHART_DIR = join(REPO_ROOT, "deploy", "helm", "openclaw-enterprise");
export const CI_VALUES = {
  default: join(CHART_DIR, "ci", "default-values.yaml"),
  preprovisioned: join(CHART_DIR, "ci", "preprovisioned-values.yaml"),
} as const;
/** The Kubernetes version the chart is rendered for (the test cluster's release). */
export const KUBE_VERSION = "1.36.3";

/** A rendered object: plain JSON as helm printed it. */
export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [key: string]: unknown;
}

export interface HelmRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs helm with `args`; never throws for a non-zero exit (the caller asserts on it). */
export function runHelm(args: readonly string[]): Promise<HelmRun> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      HELM,
      [...args],
      {
        cwd: REPO_ROOT,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, HELM_NO_PLUGINS: "1" },
      },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== "number") {
          reject(new Error(`cannot run ${HELM}: ${err.message} (run bash tools/prereqs.sh)`));
          return;
        }
        resolvePromise({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

export interface RenderOptions {
  /** Values files, applied in order (e.g. one of {@link CI_VALUES}). */
  readonly valuesFiles?: readonly string[];
  /** Values applied last, as one more values file (so any shape can be given exactly). */
  readonly values?: Readonly<Record<string, unknown>>;
  readonly releaseName?: string;
  readonly namespace?: string;
  /** `helm template --is-upgrade`: render as for an upgrade. */
  readonly isUpgrade?: boolean;
}

/** `helm template` with `opts`: the run, unparsed. */
export async function helmTemplate(opts: RenderOptions = {}): Promise<HelmRun> {
  const dir = await mkdtemp(join(tmpdir(), "occ-helm-"));
  try {
    const args = [
      "template",
      opts.releaseName ?? "occ",
      CHART_DIR,
      "--namespace",
      opts.namespace ?? "openclaw-system",
      "--kube-version",
      KUBE_VERSION,
    ];
    for (const file of opts.valuesFiles ?? []) args.push("--values", file);
    if (opts.values !== undefined) {
      const file = join(dir, "values.json");
      // JSON is YAML: the values file carries exactly the given structure and types.
      await writeFile(file, JSON.stringify(opts.values));
      args.push("--values", file);
    }
    if (opts.isUpgrade === true) args.push("--is-upgrade");
    return await runHelm(args);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Renders the chart and parses every object; throws with helm's message when it refuses. */
export async function renderChart(opts: RenderOptions = {}): Promise<RenderedObject[]> {
  const run = await helmTemplate(opts);
  if (run.code !== 0) throw new Error(`helm template failed (${run.code}): ${run.stderr}`);
  return parseManifests(run.stdout);
}

/** The objects of a multi-document YAML stream (empty documents dropped). */
export function parseManifests(text: string): RenderedObject[] {
  const out: RenderedObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0)
      throw new Error(`helm printed invalid YAML: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRenderedObject(value))
      throw new Error(`not a Kubernetes object: ${JSON.stringify(value)}`);
    out.push(value);
  }
  return out;
}

function isRenderedObject(value: unknown): value is RenderedObject {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
  if (typeof v.metadata !== "object" || v.metadata === null) return false;
  const name = (v.metadata as { name?: unknown }).name;
  return typeof v.apiVersion === "string" && typeof v.kind === "string" && typeof name === "string";
}

/** The one object of `kind` named `name`; throws when absent or ambiguous. */
export function findObject(objects: readonly RenderedObject[], kind: string, name: string) {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  if (found.length !== 1) {
    throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  }
  return found[0] as RenderedObject;
}

/** Objects carrying a `helm.sh/hook` annotation. */
export function hookObjects(objects: readonly RenderedObject[]): RenderedObject[] {
  return objects.filter((o) => o.metadata.annotations?.["helm.sh/hook"] !== undefined);
}
