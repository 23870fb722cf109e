/**
 * Completing the DNS grant of an `allow-dns` policy written before a DNS port was added (53
 * only, before 5353 joined it): placement.md §5.
 *
 * A tenant made ready by an older release holds an `allow-dns` whose DNS rule lacks a port.
 * Instead of rewriting the whole policy, the grant is completed with one minimal JSON patch
 * that only appends the missing ports to that rule — selectors, peers and every other rule
 * are left exactly as stored — guarded by the observed UID (a `test` operation: a recreated
 * object refuses it) and `resourceVersion` (a concurrent change answers 409). It applies only
 * when appending the ports makes the policy equal to the desired one; any other difference
 * takes the ordinary guarded update, and a complete grant needs no write at all.
 */
import type { NetworkPolicy, NetworkPolicyPort } from "../placement/k8s-objects.js";
import { NETWORK_POLICY_NAMES } from "./network-policies.js";
import { networkPolicySpecsEquivalent } from "./network-policy-equivalence.js";

/** One RFC 6902 operation, as the guarded patch sends it. */
export type JsonPatchOperation = {
  readonly op: "test" | "replace" | "add";
  readonly path: string;
  readonly value: unknown;
};

/** The DNS ports `observed` lacks and the patch that adds them, or null (see above). */
export interface DnsGrantCompletion {
  readonly missing: readonly NetworkPolicyPort[];
  readonly patch: readonly JsonPatchOperation[];
}

/**
 * The completion of `observed`'s DNS grant toward `desired` (both `allow-dns`), or null when
 * it is not only a matter of missing ports (or nothing is missing, or the observed object has
 * no UID or `resourceVersion` to guard with).
 */
export function dnsGrantCompletion(
  observed: NetworkPolicy,
  desired: NetworkPolicy,
): DnsGrantCompletion | null {
  if (desired.metadata.name !== NETWORK_POLICY_NAMES.allowDns) return null;
  const { uid, resourceVersion } = observed.metadata;
  const wanted = desired.spec?.egress?.[0]?.ports ?? [];
  const rules = observed.spec?.egress ?? [];
  if (uid === undefined || resourceVersion === undefined || observed.spec === undefined) {
    return null;
  }
  for (const [index, rule] of rules.entries()) {
    const present = rule.ports ?? [];
    const missing = wanted.filter((w) => !present.some((p) => samePort(p, w)));
    if (missing.length === 0) continue;
    const completed = {
      ...observed.spec,
      egress: rules.map((r, i) => (i === index ? { ...r, ports: [...present, ...missing] } : r)),
    };
    if (!networkPolicySpecsEquivalent(completed, desired.spec)) continue;
    const adds: JsonPatchOperation[] =
      rule.ports === undefined
        ? [{ op: "add", path: `/spec/egress/${index}/ports`, value: missing }]
        : missing.map((port) => ({
            op: "add",
            path: `/spec/egress/${index}/ports/-`,
            value: port,
          }));
    return {
      missing,
      patch: [
        { op: "test", path: "/metadata/uid", value: uid },
        { op: "replace", path: "/metadata/resourceVersion", value: resourceVersion },
        ...adds,
      ],
    };
  }
  return null;
}

function samePort(a: NetworkPolicyPort, b: NetworkPolicyPort): boolean {
  return (
    (a.protocol ?? "TCP") === (b.protocol ?? "TCP") &&
    String(a.port) === String(b.port) &&
    a.endPort === b.endPort
  );
}
