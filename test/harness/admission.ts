import type { RbacSubject } from "../../src/drivers/kubernetes/rbac-objects.js";
import { CI_VALUES, renderChart, type RenderedObject } from "./helm.js";

/**
 * The chart's admission policies for the test cluster — rendered by the real helm from
 * deploy/helm/openclaw-enterprise (ci/default-values.yaml), not hand-written. Only the
 * identities change: beside the chart's ServiceAccounts, the policies hold for the static users
 * `occ-worker` / `occ-api` the tests run the worker and the API as (`admissionPolicies.extraSubjects`).
 */
export const HARNESS_IDENTITIES: readonly RbacSubject[] = [
  { kind: "User", name: "occ-worker" },
  { kind: "User", name: "occ-api" },
];

const POLICY_KINDS = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"];

/** The rendered policies and bindings, reduced to what the API server is given of them. */
export async function chartAdmissionPolicies(
  values: Readonly<Record<string, unknown>> = {},
): Promise<RenderedObject[]> {
  const objects = await renderChart({
    valuesFiles: [CI_VALUES.default],
    values: { admissionPolicies: { extraSubjects: HARNESS_IDENTITIES }, ...values },
  });
  return objects
    .filter((o) => POLICY_KINDS.includes(o.kind))
    .map((o) => ({
      ...o,
      // The chart's labels too: the runbook finds the policies by them.
      metadata: {
        name: o.metadata.name,
        ...(o.metadata.labels !== undefined ? { labels: o.metadata.labels } : {}),
      },
    }));
}
