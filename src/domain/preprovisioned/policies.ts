/**
 * Sealed NetworkPolicies of the preprovisioned namespace (preprovisioned.md §3, seed 001: "It
 * refuses a NetworkPolicy that is not a Compute policy or a declared operator policy, or whose
 * spec differs").
 *
 * Policies are additive: any policy nobody declared could widen the namespace's isolation, so
 * the set is sealed. Exactly three kinds of policy are admitted, each only with the spec it
 * must have (under `network-policy-equivalence.ts`):
 *
 * 1. Compute's namespace policies (`default-deny`, `allow-dns`, …), carrying the tenant's
 *    ownership markers;
 * 2. the per-Agent Credential Proxy policy `agent-egress-<h12(agentId)>` Compute renders for an
 *    Agent that EXISTS in this Namespace, carrying that Agent's ownership markers — an
 *    `agent-egress-…` policy of no existing Agent is undeclared;
 * 3. the declared operator policies: every NetworkPolicy of the OpenShell
 *    `gateway.networkPolicyResources` and `gateway.operatorWorkspaceResources`.
 *
 * A missing Compute or Agent policy is not a violation (Compute and the Agent's deploy create
 * them); a missing declared policy is the OpenShell Driver's to report. The same function
 * decides for the worker's pass and for `occ preprovisioned verify`.
 */
import type { ComputeSettings } from "../isolation/compute-settings.js";
import type { NetworkPolicy, NetworkPolicySpec } from "../placement/k8s-objects.js";
import { agentOwnershipMarkers, hasMarkers, isOwnedBy } from "../placement/markers.js";
import { networkPolicySpecsEquivalent } from "../isolation/network-policy-equivalence.js";
import { notDone, type NotDone } from "../placement/outcomes.js";
import { desiredOwnedObjects } from "../isolation/owned-objects.js";
import { PREPROVISIONED_MESSAGES, type FailedRequirement } from "./namespace.js";
import type { EgressAuthoritySetting } from "../workloads/inputs.js";
import { agentEgressPolicy } from "../workloads/objects.js";

/** A declared operator NetworkPolicy: its name, spec, and the configuration key declaring it. */
export interface DeclaredPolicy {
  readonly name: string;
  readonly spec: NetworkPolicySpec;
  /** e.g. `openshell.gateway.networkPolicyResources[0]`. */
  readonly key: string;
}

/** The Agent egress policy Compute renders for one existing Agent. */
export interface AgentPolicy {
  readonly agentId: string;
  readonly policy: NetworkPolicy;
}

/** Everything the seal admits in one tenant's namespace. */
export interface SealedPolicySet {
  readonly tenantId: string;
  /** Compute's namespace policies, as rendered for this tenant. */
  readonly compute: readonly NetworkPolicy[];
  /** The egress policy of each Agent of this Namespace that exists. */
  readonly agents: readonly AgentPolicy[];
  /** The declared operator policies. */
  readonly declared: readonly DeclaredPolicy[];
}

/** What the sealed set of one tenant's namespace is rendered from. */
export interface SealedPolicyInput {
  readonly tenantId: string;
  readonly namespace: string;
  readonly settings: ComputeSettings;
  /** The Credential Proxy; `null` renders no Agent policy (the profile requires one). */
  readonly egressAuthority: EgressAuthoritySetting | null;
  /** The IDs of the Agents of this Namespace that exist (any status). */
  readonly agentIds: readonly string[];
  readonly declared: readonly DeclaredPolicy[];
}

/** The policies the seal admits, rendered by the same functions Compute writes them with. */
export function sealedPolicySet(input: SealedPolicyInput): SealedPolicySet {
  const { tenantId, namespace, settings, egressAuthority } = input;
  const compute = desiredOwnedObjects(tenantId, namespace, settings).filter(
    (o): o is NetworkPolicy => o.kind === "NetworkPolicy",
  );
  const agents =
    egressAuthority === null
      ? []
      : input.agentIds.map((agentId) => ({
          agentId,
          policy: agentEgressPolicy({
            tenantId,
            namespace,
            agentId,
            egressAuthority,
            dns: settings.dns,
          }) as unknown as NetworkPolicy,
        }));
  return { tenantId, compute, agents, declared: input.declared };
}

/** The name prefix of the per-Agent egress policies (`workload-names.ts`). */
export const AGENT_EGRESS_PREFIX = "agent-egress-";

/**
 * Every policy that breaks the seal, each naming the policy and its fix: undeclared; a Compute
 * or Agent policy without its exact markers or with a changed spec; a declared policy with a
 * changed spec. Empty when the seal holds.
 */
export function sealedPolicyFailures(
  observed: readonly NetworkPolicy[],
  expected: SealedPolicySet,
): FailedRequirement[] {
  return observed.flatMap((policy) => policyFailure(policy, expected) ?? []);
}

function policyFailure(policy: NetworkPolicy, set: SealedPolicySet): FailedRequirement | null {
  const name = policy.metadata.name ?? "";
  const same = (spec: NetworkPolicySpec | undefined) =>
    networkPolicySpecsEquivalent(policy.spec, spec);
  const compute = set.compute.find((p) => p.metadata.name === name);
  if (compute !== undefined) {
    if (!isOwnedBy(policy.metadata, set.tenantId)) {
      return {
        requirement: `NetworkPolicy ${name} carries the tenant ownership markers`,
        fix: `delete NetworkPolicy ${name}; Compute recreates it`,
      };
    }
    return same(compute.spec)
      ? null
      : {
          requirement: `NetworkPolicy ${name} has the spec Compute renders`,
          fix: `delete NetworkPolicy ${name}; Compute recreates it`,
        };
  }
  const agent = set.agents.find((a) => a.policy.metadata.name === name);
  if (agent !== undefined) {
    if (!hasMarkers(policy.metadata, agentOwnershipMarkers(set.tenantId, agent.agentId))) {
      return {
        requirement: `NetworkPolicy ${name} carries the ownership markers of Agent ${agent.agentId}`,
        fix: `delete NetworkPolicy ${name}; the Agent's next deploy recreates it`,
      };
    }
    return same(agent.policy.spec)
      ? null
      : {
          requirement: `NetworkPolicy ${name} has the spec Compute renders for Agent ${agent.agentId}`,
          fix: `delete NetworkPolicy ${name}; the Agent's next deploy recreates it`,
        };
  }
  const operator = set.declared.find((p) => p.name === name);
  if (operator !== undefined) {
    return same(operator.spec)
      ? null
      : {
          requirement: `NetworkPolicy ${name} has the spec declared in ${operator.key}`,
          fix: `restore NetworkPolicy ${name} from ${operator.key} (occ preprovisioned render | kubectl apply -f -)`,
        };
  }
  if (name.startsWith(AGENT_EGRESS_PREFIX)) {
    return {
      requirement: `NetworkPolicy ${name} is the egress policy of an Agent of this Namespace`,
      fix: `delete NetworkPolicy ${name}: no existing Agent renders it`,
    };
  }
  return {
    requirement: `NetworkPolicy ${name} is a Compute or declared operator policy`,
    fix: `delete NetworkPolicy ${name}, or declare it in openshell.gateway.networkPolicyResources`,
  };
}

/**
 * The pass outcome for seal failures: the seed's sentence, then each fix — every fix names
 * its policy (the reason is cut at its length limit; `occ preprovisioned verify` lists all).
 */
export function sealedPolicyRefusal(failures: readonly FailedRequirement[]): NotDone {
  return notDone(
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `${PREPROVISIONED_MESSAGES.sealedPolicies} ${failures.map((f) => f.fix).join("; ")}`,
  );
}
