/**
 * The port the console's read-only questions go through (issue 37): the external-adoption
 * preflight of a candidate namespace (the worker's verdicts, read with the API's own identity),
 * the namespaces an administrator may select, the Kubernetes Events of a tenant namespace, the
 * admission policies present and the grants an operator applies. It never writes. Every read
 * Kubernetes refuses throws a {@link TenantObjectError} naming what could not be read and the
 * grant that fixes it — never a partial answer that looks complete.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import type { Violation } from "../domain/placement/violations.js";
import type { ObjectClient } from "./kubernetes/client/index.js";
import { KubernetesNamespaceInspector } from "./kubernetes/namespace-inspector.js";

/** One Kubernetes Event of a tenant namespace, newest first in a listing. */
export interface KubernetesEventRecord {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** `Kind/name` of the object it is about. */
  readonly object: string;
  readonly source: string;
  readonly count: number;
  /** When it was last seen (ISO 8601), or null when Kubernetes recorded no time. */
  readonly lastAt: string | null;
}

/** One of OCC's ValidatingAdmissionPolicies and whether it and its binding exist now. */
export interface AdmissionPolicyPresence {
  readonly name: string;
  readonly policy: boolean;
  readonly binding: boolean;
}

export interface NamespaceInspector {
  /** Every failing requirement of adopting `name` (for `tenantId`, or a new tenant). */
  preflight(name: string, tenantId?: string): Promise<readonly Violation[]>;
  /** Namespaces without tenant markers and not reserved, by name (at most `limit`). */
  candidates(limit: number): Promise<readonly string[]>;
  /** The newest Events in `namespace` (at most `limit`). */
  events(namespace: string, limit: number): Promise<readonly KubernetesEventRecord[]>;
  /** OCC's three admission policies, present or not. */
  admissionPolicies(): Promise<readonly AdmissionPolicyPresence[]>;
  /** The RoleBindings the operator applies in `namespace`, as YAML. */
  grants(namespace: string): string;
}

/** The inspector over the API's own `client` (normal profile; it lists cluster-wide). */
export function namespaceInspectorOf(
  client: ObjectClient,
  config: InstallationConfig,
): NamespaceInspector {
  return new KubernetesNamespaceInspector(client, config);
}
