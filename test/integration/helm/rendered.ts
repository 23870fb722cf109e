import { expect } from "vitest";
import { parse } from "yaml";
import {
  findObject,
  renderChart,
  type RenderOptions,
  type RenderedObject,
} from "../../harness/helm.js";

/** Reading what the chart rendered: environment variables, the configuration document, RBAC. */

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}
interface PodTemplateOwner {
  readonly spec: { readonly template: { readonly spec: { readonly containers: Container[] } } };
}
interface Container {
  readonly name: string;
  readonly env?: EnvVar[];
  readonly args?: string[];
}

export interface PolicyRuleJson {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** The one Deployment of `component` (`api` or `worker`). */
export function deploymentOf(objects: readonly RenderedObject[], component: "api" | "worker") {
  const found = objects.filter(
    (o) =>
      o.kind === "Deployment" && o.metadata.labels?.["app.kubernetes.io/component"] === component,
  );
  if (found.length !== 1) throw new Error(`expected one ${component} Deployment`);
  return found[0] as RenderedObject & PodTemplateOwner;
}

/** The value of env var `name` on the Deployment's only container (undefined when absent). */
export function envOf(deployment: RenderedObject & PodTemplateOwner, name: string) {
  const containers = deployment.spec.template.spec.containers;
  if (containers.length !== 1) throw new Error("expected one container");
  return containers[0]?.env?.find((e) => e.name === name)?.value;
}

/** The Installation configuration document of the release's ConfigMap, parsed. */
export function installationDocument(objects: readonly RenderedObject[]): unknown {
  const maps = objects.filter(
    (o) =>
      o.kind === "ConfigMap" &&
      o.metadata.name.endsWith("-config") &&
      o.metadata.annotations?.["helm.sh/hook"] === undefined,
  );
  if (maps.length !== 1)
    throw new Error(`expected one configuration ConfigMap, found ${maps.length}`);
  const data = (maps[0] as RenderedObject & { data: Record<string, string> }).data;
  const text = data["installation.yaml"];
  if (text === undefined) throw new Error("the ConfigMap has no installation.yaml");
  return parse(text);
}

/** The rules of the ClusterRole `name`. */
export function rulesOf(objects: readonly RenderedObject[], name: string): PolicyRuleJson[] {
  return (findObject(objects, "ClusterRole", name) as RenderedObject & { rules: PolicyRuleJson[] })
    .rules;
}

/** The ClusterRole names referenced by any ClusterRoleBinding or RoleBinding rendered. */
export function boundRoleNames(objects: readonly RenderedObject[]): string[] {
  return objects
    .filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding")
    .map((o) => (o as RenderedObject & { roleRef: { name: string } }).roleRef.name)
    .sort();
}

/** The configuration document as the parity suites edit it. */
export type Doc = Record<string, unknown> & { network: Record<string, unknown> };

/** The chart rendered: the binding both processes get (the same) and the configuration. */
export async function rendered(opts: RenderOptions) {
  const objects = await renderChart(opts);
  const raw = envOf(deploymentOf(objects, "worker"), "OCC_PREPROVISIONED_NAMESPACE");
  expect(envOf(deploymentOf(objects, "api"), "OCC_PREPROVISIONED_NAMESPACE")).toBe(raw);
  return { raw, doc: installationDocument(objects) as Doc };
}
