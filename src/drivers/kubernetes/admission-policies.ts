/**
 * The ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1, CEL) that make the API
 * server itself refuse what OCC must never do, stated once. The Helm chart renders the same
 * objects (templates/admission-policies.yaml; a test compares them with these), `occ dev up`
 * creates these, and the test harness creates the chart's rendering for the whole test cluster.
 *
 * Each policy holds only for the worker's and the API's identities (`matchConditions` on
 * `request.userInfo.username`): in the chart their ServiceAccounts, in the local cluster the
 * static users `occ-worker` / `occ-api`. The marker keys are those of src/domain/placement/markers.ts.
 */
import type { OpenShellSettings } from "../../config/installation-config.js";
import type { KubeObjectLike } from "./client/index.js";
import { fieldOf } from "../../domain/input/unknowns.js";
import {
  namespacePolicySpec,
  ownedObjectsPolicySpec,
  roleBindingsPolicySpec,
} from "./admission-policy-specs.js";
import {
  ADMISSION_POLICY_NAMES,
  type AdmissionPolicyOptions,
  type DeclaredRoleBinding,
} from "./admission-vocabulary.js";

export * from "./admission-vocabulary.js";

const GROUP = "admissionregistration.k8s.io";

/** The policies and their bindings (`validationActions: [Deny]`), in creation order. */
export function admissionPolicyObjects(opts: AdmissionPolicyOptions): readonly KubeObjectLike[] {
  const specs = [
    [ADMISSION_POLICY_NAMES.namespaces, namespacePolicySpec(opts)],
    [ADMISSION_POLICY_NAMES.ownedObjects, ownedObjectsPolicySpec(opts)],
    [ADMISSION_POLICY_NAMES.roleBindings, roleBindingsPolicySpec(opts)],
  ] as const;
  return specs.flatMap(([name, spec]) => [
    { apiVersion: `${GROUP}/v1`, kind: "ValidatingAdmissionPolicy", metadata: { name }, spec },
    {
      apiVersion: `${GROUP}/v1`,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name, validationActions: ["Deny"] },
    },
  ]);
}

/** The OpenShell parts of the options, from the Installation configuration's `openshell`. */
export function openshellPolicyOptions(openshell: OpenShellSettings | null): {
  readonly openshellNamespaceLabels: Readonly<Record<string, string>>;
  readonly declaredRoleBindings: readonly DeclaredRoleBinding[];
} {
  if (openshell === null) return { openshellNamespaceLabels: {}, declaredRoleBindings: [] };
  const declaredRoleBindings = openshell.operatorWorkspaceResources.flatMap((m) => {
    const kind = fieldOf(m.roleRef, "kind");
    const role = fieldOf(m.roleRef, "name");
    const name = fieldOf(m.metadata, "name");
    return m.kind === "RoleBinding" &&
      typeof kind === "string" &&
      typeof role === "string" &&
      typeof name === "string"
      ? [{ kind, name, role }]
      : [];
  });
  return { openshellNamespaceLabels: openshell.operatorNamespaceLabels, declaredRoleBindings };
}
