/**
 * Validation of the OpenShell gateway declaration (preprovisioned.md §4) beyond its shape:
 * what the schema cannot say. Every problem names its key.
 *
 * - `gateway.operatorNamespaceLabels`: at least one entry, each a valid label key and value;
 * - `gateway.operatorWorkspaceResources`: ServiceAccount (`v1`), Role or RoleBinding
 *   (`rbac.authorization.k8s.io/v1`) or NetworkPolicy (`networking.k8s.io/v1`) — nothing
 *   else, never a Secret;
 * - `gateway.networkPolicyResources`: NetworkPolicies of `networking.k8s.io/v1`, each with a
 *   `spec` object;
 * - a declared NetworkPolicy (in either list) has no empty `ingress`/`egress` list for a
 *   direction its `policyTypes` does not explicitly list: the API server stores such a list as
 *   absent, which is a different policy (network-policy-equivalence.ts), so the declaration
 *   could never match what is stored — the namespace would stay degraded (preprovisioned) or
 *   be rewritten on every pass (normal);
 * - every manifest has a DNS-1123 `metadata.name`, no `metadata.namespace` (OCC places it),
 *   and no two share kind and name; no NetworkPolicy takes a name Compute renders (its
 *   namespace policies, or `agent-egress-…`, the prefix of the per-Agent egress policies).
 */
import type { ConfigurationProblem } from "../domain/index.js";
import {
  AGENT_EGRESS_PREFIX,
  NETWORK_POLICY_NAMES,
  isDns1123Subdomain,
  isLabelKey,
  isLabelValue,
} from "../domain/index.js";
import { oneOf } from "../domain/input/unknowns.js";

type Manifest = Readonly<Record<string, unknown>>;

const API_VERSION_BY_KIND: Readonly<Record<string, string>> = {
  ServiceAccount: "v1",
  Role: "rbac.authorization.k8s.io/v1",
  RoleBinding: "rbac.authorization.k8s.io/v1",
  NetworkPolicy: "networking.k8s.io/v1",
};

/** Problems of the `openshell.gateway` block (empty when valid). */
export function openshellGatewayProblems(gateway: {
  readonly operatorNamespaceLabels: Readonly<Record<string, string>>;
  readonly operatorWorkspaceResources: readonly Manifest[];
  readonly networkPolicyResources: readonly Manifest[];
}): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  const labelsKey = "openshell.gateway.operatorNamespaceLabels";
  const labels = Object.entries(gateway.operatorNamespaceLabels);
  if (labels.length === 0) {
    problems.push({ key: labelsKey, message: `${labelsKey} must have at least one entry` });
  }
  for (const [key, value] of labels) {
    if (!isLabelKey(key) || !isLabelValue(value)) {
      problems.push({
        key: `${labelsKey}.${key}`,
        message: `${labelsKey}.${key} is not a valid Kubernetes label key and value`,
      });
    }
  }
  const seen = new Set<string>();
  const check = (list: readonly Manifest[], field: string, onlyPolicies: boolean) => {
    list.forEach((manifest, index) => {
      const key = `openshell.gateway.${field}[${index}]`;
      const kind = manifest.kind;
      const expected = typeof kind === "string" ? API_VERSION_BY_KIND[kind] : undefined;
      if (expected === undefined || (onlyPolicies && kind !== "NetworkPolicy")) {
        problems.push({
          key: `${key}.kind`,
          message: onlyPolicies
            ? `${key}.kind must be NetworkPolicy`
            : `${key}.kind must be ServiceAccount, Role, RoleBinding or NetworkPolicy (never a Secret)`,
        });
        return;
      }
      if (manifest.apiVersion !== expected) {
        problems.push({
          key: `${key}.apiVersion`,
          message: `${key}.apiVersion must be ${expected}`,
        });
      }
      if (kind === "NetworkPolicy") {
        if (isObject(manifest.spec)) problems.push(...emptyDirectionProblems(manifest.spec, key));
        else
          problems.push({
            key: `${key}.spec`,
            message: `${key}.spec must be a NetworkPolicy spec`,
          });
      }
      const metadata = isObject(manifest.metadata) ? manifest.metadata : {};
      const name = metadata.name;
      if (typeof name !== "string" || !isDns1123Subdomain(name)) {
        problems.push({
          key: `${key}.metadata.name`,
          message: `${key}.metadata.name must be a DNS-1123 name`,
        });
        return;
      }
      if (metadata.namespace !== undefined) {
        problems.push({
          key: `${key}.metadata.namespace`,
          message: `${key}.metadata.namespace must be absent: OCC places the resource in the tenant namespace`,
        });
      }
      if (
        kind === "NetworkPolicy" &&
        (oneOf(Object.values(NETWORK_POLICY_NAMES), name) !== undefined ||
          name.startsWith(AGENT_EGRESS_PREFIX))
      ) {
        problems.push({
          key: `${key}.metadata.name`,
          message: `${key}.metadata.name is the name of a Compute NetworkPolicy; choose another`,
        });
      }
      const identity = `${String(kind)}/${name}`;
      if (seen.has(identity)) {
        problems.push({ key, message: `${key} declares ${identity} a second time` });
      }
      seen.add(identity);
    });
  };
  check(gateway.operatorWorkspaceResources, "operatorWorkspaceResources", false);
  check(gateway.networkPolicyResources, "networkPolicyResources", true);
  return problems;
}

/**
 * An empty `ingress`/`egress` list whose direction `policyTypes` does not explicitly list
 * (absent or empty `policyTypes` lists nothing explicitly): never equal to what is stored.
 */
function emptyDirectionProblems(
  spec: Readonly<Record<string, unknown>>,
  key: string,
): ConfigurationProblem[] {
  const listed = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  const directions = [
    { list: "ingress", type: "Ingress" },
    { list: "egress", type: "Egress" },
  ] as const;
  return directions
    .filter(({ list, type }) => {
      const rules = spec[list];
      return Array.isArray(rules) && rules.length === 0 && !listed.includes(type);
    })
    .map(({ list, type }) => ({
      key: `${key}.spec.${list}`,
      message: `${key}.spec.${list} is an empty list but ${key}.spec.policyTypes does not list ${type}: the API server stores it as absent, so the declaration can never match; remove ${list}, or add ${type} to policyTypes`,
    }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
