/**
 * Sealed NetworkPolicies of the preprovisioned namespace (preprovisioned.md §3).
 *
 * Policies are additive: any policy nobody declared could widen the namespace's isolation, so
 * the set is sealed. Every NetworkPolicy in the namespace must be either a Compute policy (a
 * name Compute renders, carrying this tenant's ownership markers) whose spec equals the
 * rendered one, or a declared operator policy (OpenShell `gateway.networkPolicyResources`)
 * whose spec equals the declared one — both under the equivalence rules of
 * `network-policy-equivalence.ts`. A missing Compute policy is not a violation: Compute
 * creates it. A missing declared policy is the OpenShell Driver's to report.
 */
import type { NetworkPolicy, NetworkPolicySpec } from "./k8s-objects.js";
import { isOwnedBy } from "./markers.js";
import { networkPolicySpecsEquivalent } from "./network-policy-equivalence.js";
import { notDone, type NotDone } from "./outcomes.js";
import { PREPROVISIONED_MESSAGES, type FailedRequirement } from "./preprovisioned-namespace.js";

/** A declared operator NetworkPolicy: its name and spec as configured. */
export interface DeclaredPolicy {
  readonly name: string;
  readonly spec: NetworkPolicySpec;
}

/**
 * Every policy that breaks the seal: undeclared, a Compute policy without the tenant markers
 * or with a changed spec, or a declared policy with a changed spec. Each names the policy
 * (every object in the sealed namespace belongs to this tenant or its operator).
 */
export function sealedPolicyFailures(
  observed: readonly NetworkPolicy[],
  tenantId: string,
  rendered: readonly NetworkPolicy[],
  declared: readonly DeclaredPolicy[],
): FailedRequirement[] {
  return observed.flatMap((policy): FailedRequirement[] => {
    const name = policy.metadata.name ?? "";
    const compute = rendered.find((p) => p.metadata.name === name);
    if (compute !== undefined) {
      if (!isOwnedBy(policy.metadata, tenantId)) {
        return [
          {
            requirement: `NetworkPolicy ${name} carries the tenant ownership markers`,
            fix: `delete NetworkPolicy ${name}; Compute recreates it`,
          },
        ];
      }
      return networkPolicySpecsEquivalent(policy.spec, compute.spec)
        ? []
        : [
            {
              requirement: `NetworkPolicy ${name} has the spec Compute renders`,
              fix: `delete NetworkPolicy ${name}; Compute recreates it`,
            },
          ];
    }
    const operator = declared.find((p) => p.name === name);
    if (operator === undefined) {
      return [
        {
          requirement: `NetworkPolicy ${name} is a Compute or declared operator policy`,
          fix: `delete NetworkPolicy ${name}, or declare it in openshell.gateway.networkPolicyResources`,
        },
      ];
    }
    return networkPolicySpecsEquivalent(policy.spec, operator.spec)
      ? []
      : [
          {
            requirement: `NetworkPolicy ${name} has the declared spec`,
            fix: `restore NetworkPolicy ${name} from openshell.gateway.networkPolicyResources`,
          },
        ];
  });
}

/** The pass outcome for seal failures: the seed's sentence, then the policies concerned. */
export function sealedPolicyRefusal(failures: readonly FailedRequirement[]): NotDone {
  return notDone(
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `${PREPROVISIONED_MESSAGES.sealedPolicies} Failing: ${failures.map((f) => f.requirement).join("; ")}`,
  );
}
