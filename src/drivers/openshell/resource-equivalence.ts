/**
 * Does a live operator workspace resource match its declaration? (preprovisioned.md §4.)
 *
 * Every field except `metadata` and `status` is compared: NetworkPolicy specs under the
 * shared equivalence rules (`network-policy-equivalence.ts`), everything else exactly after the
 * API server's documented defaults for these kinds (a RoleBinding subject of kind User or
 * Group gets `apiGroup: rbac.authorization.k8s.io`). Key order never matters.
 */
import { networkPolicySpecsEquivalent, type NetworkPolicySpec } from "../../domain/index.js";
import { isRecord } from "../../domain/input/unknowns.js";

type Json = Readonly<Record<string, unknown>>;

const IGNORED = new Set(["metadata", "status"]);
const RBAC_GROUP = "rbac.authorization.k8s.io";

/** True when `live` matches `declared` in every field outside `metadata` and `status`. */
export function workspaceResourceMatches(declared: Json, observed: object): boolean {
  const live: Json = { ...observed };
  const keys = new Set(
    [...Object.keys(declared), ...Object.keys(live)].filter((k) => !IGNORED.has(k)),
  );
  for (const key of keys) {
    if (key === "spec" && declared.kind === "NetworkPolicy") {
      if (
        !networkPolicySpecsEquivalent(
          live.spec as NetworkPolicySpec,
          declared.spec as NetworkPolicySpec,
        )
      ) {
        return false;
      }
      continue;
    }
    const left = key === "subjects" ? defaultSubjects(declared[key]) : declared[key];
    const right = key === "subjects" ? defaultSubjects(live[key]) : live[key];
    if (canonical(left) !== canonical(right)) return false;
  }
  return true;
}

function defaultSubjects(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((subject: unknown) => {
    if (!isRecord(subject)) return subject;
    const s = subject;
    return (s.kind === "User" || s.kind === "Group") && s.apiGroup === undefined
      ? { ...s, apiGroup: RBAC_GROUP }
      : s;
  });
}

/** JSON with object keys sorted, `undefined` for absent. */
function canonical(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
