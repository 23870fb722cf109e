/**
 * The pod template of a Deployment read back from the API server, parsed to the depth the
 * workload tests read (containers and their env); everything else is kept as the server sent it.
 */
import type { KindObject } from "../../../src/drivers/kubernetes/client/index.js";

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
}

export interface Container {
  readonly name: string;
  readonly env?: readonly EnvVar[];
  readonly [field: string]: unknown;
}

export interface PodSpec {
  readonly containers: readonly Container[];
  readonly [field: string]: unknown;
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const isEnvVar = (v: unknown): v is EnvVar =>
  isRecord(v) &&
  typeof v["name"] === "string" &&
  (v["value"] === undefined || typeof v["value"] === "string");

const isContainer = (v: unknown): v is Container =>
  isRecord(v) &&
  typeof v["name"] === "string" &&
  (v["env"] === undefined || (Array.isArray(v["env"]) && v["env"].every(isEnvVar)));

const isPodSpec = (v: unknown): v is PodSpec =>
  isRecord(v) && Array.isArray(v["containers"]) && v["containers"].every(isContainer);

/** `spec.template.spec` of `deployment`; throws when it is not a pod spec with containers. */
export function podSpecOf(deployment: KindObject<"Deployment">): PodSpec {
  const template = deployment.spec?.["template"];
  const spec = isRecord(template) ? template["spec"] : undefined;
  if (!isPodSpec(spec)) {
    throw new Error(`Deployment ${deployment.metadata.name} has no pod template with containers`);
  }
  return spec;
}
