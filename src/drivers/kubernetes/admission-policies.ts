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
import { ANNOTATIONS, LABELS, LIFECYCLE, MARKER_VALUES } from "../../domain/placement/markers.js";
import type { OpenShellSettings } from "../../config/installation-config.js";
import type { KubeObjectLike } from "./client/index.js";
import { TENANT_CLUSTER_ROLES } from "./rbac-rules.js";
import type { RbacSubject } from "./rbac-objects.js";

/** The names of the three policies (each with a binding of the same name). */
export const ADMISSION_POLICY_NAMES = {
  namespaces: "openclaw-enterprise-namespaces",
  ownedObjects: "openclaw-enterprise-owned-objects",
  roleBindings: "openclaw-enterprise-role-bindings",
} as const;

/** What varies between installations; everything else is fixed. */
export interface AdmissionPolicyOptions {
  /**
   * The worker's and the API's identities: the policies hold for their usernames, and a tenant
   * RoleBinding may name only them.
   */
  readonly subjects: readonly RbacSubject[];
  /** OpenShell `gateway.operatorNamespaceLabels`: labels the worker may set on a bound namespace. */
  readonly openshellNamespaceLabels: Readonly<Record<string, string>>;
  /** The RoleBindings declared in OpenShell `gateway.operatorWorkspaceResources`. */
  readonly declaredRoleBindings: readonly DeclaredRoleBinding[];
}

/** A declared RoleBinding, as the policy compares it: its name and its roleRef. */
export interface DeclaredRoleBinding {
  readonly kind: string;
  readonly name: string;
  readonly role: string;
}

/** The username Kubernetes gives a ServiceAccount's tokens. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The username of a subject's requests. */
export function usernameOf(s: RbacSubject): string {
  return s.kind === "ServiceAccount" ? serviceAccountUsername(s.namespace ?? "", s.name) : s.name;
}

/** A subject as the RoleBinding policy compares it: `kind:namespace:name`. */
export function subjectKey(s: RbacSubject): string {
  return `${s.kind}:${s.namespace ?? ""}:${s.name}`;
}

/** The start of every refusal message, so an operator can tell it from an RBAC refusal. */
export const REFUSAL_PREFIX = "openclaw-enterprise:";

/** The refusal message of each rule (documented in the chart README and docs/operations.md). */
export const ADMISSION_MESSAGES = {
  subresource: `${REFUSAL_PREFIX} OCC never writes a namespace's status or finalize subresource`,
  createName: `${REFUSAL_PREFIX} OCC creates only namespaces named oce-<15 hex> (the managed name form)`,
  createMarkers: `${REFUSAL_PREFIX} OCC creates only namespaces carrying the managed markers (app.kubernetes.io/managed-by=openclaw-enterprise, the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id, restricted Pod Security labels, no lifecycle annotation)`,
  deleteNamespace: `${REFUSAL_PREFIX} OCC deletes only the managed namespaces it created: app.kubernetes.io/managed-by=openclaw-enterprise, a tenant marker, no openclaw.dev/namespace-lifecycle annotation and a managed name (oce-<hash>)`,
  foreignKeys: `${REFUSAL_PREFIX} OCC changes only its own keys on a namespace; an operator's label or annotation (app.kubernetes.io/managed-by and openclaw.dev/namespace-lifecycle included) is never added, changed or removed`,
  tenantMarkers: `${REFUSAL_PREFIX} OCC never changes or removes a namespace's tenant markers (openclaw.dev/namespace, openclaw.dev/namespace-id, openclaw.dev/gateway-namespace)`,
  bindExternal: `${REFUSAL_PREFIX} OCC binds a tenant only to a namespace annotated openclaw.dev/namespace-lifecycle=external (or one it manages), with the same ID in every tenant marker`,
  ownedOld: `${REFUSAL_PREFIX} OCC changes or deletes only objects carrying its ownership markers (label app.kubernetes.io/managed-by=openclaw-enterprise, and the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id)`,
  ownedNew: `${REFUSAL_PREFIX} OCC creates or writes only objects carrying its ownership markers (label app.kubernetes.io/managed-by=openclaw-enterprise, and the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id)`,
  ownedTenant: `${REFUSAL_PREFIX} an object OCC owns keeps its tenant, and that tenant is the one its namespace is bound to (label openclaw.dev/namespace)`,
  bindRole: `${REFUSAL_PREFIX} OCC binds only the tenant ClusterRoles openclaw-enterprise-tenant-worker and openclaw-enterprise-tenant-api, or a RoleBinding declared in openshell.gateway.operatorWorkspaceResources`,
  bindNamespace: `${REFUSAL_PREFIX} OCC binds the tenant roles only in a managed namespace it created, for that namespace's tenant; the operator grants them in external and preprovisioned namespaces (occ namespaces grants)`,
  bindSubjects: `${REFUSAL_PREFIX} OCC binds the tenant roles only to the worker's and the API's own identities`,
} as const;

const GROUP = "admissionregistration.k8s.io";
const json = (v: unknown) => JSON.stringify(v);
/** A CEL optional lookup of `key` in `map`, by the key's JSON (CEL) string literal. */
const at = (map: string, key: string) => `${map}[?${json(key)}]`;
const is = (map: string, key: string, value: string) =>
  `${at(map, key)} == optional.of(${json(value)})`;

interface Validation {
  readonly expression: string;
  readonly message: string;
  readonly reason: "Forbidden";
}
const rule = (expression: string, message: string): Validation => ({
  expression,
  message,
  reason: "Forbidden",
});

/** `labels` / `annotations` of `object` and `oldObject` (empty maps when absent or null). */
const METADATA_VARIABLES = [
  {
    name: "newLabels",
    expression: 'request.operation == "DELETE" ? {} : object.metadata.?labels.orValue({})',
  },
  {
    name: "newAnnotations",
    expression: 'request.operation == "DELETE" ? {} : object.metadata.?annotations.orValue({})',
  },
  {
    name: "oldLabels",
    expression: 'request.operation == "CREATE" ? {} : oldObject.metadata.?labels.orValue({})',
  },
  {
    name: "oldAnnotations",
    expression: 'request.operation == "CREATE" ? {} : oldObject.metadata.?annotations.orValue({})',
  },
] as const;

const TENANT = LABELS.namespace;
/** The current (`oce-<h(id,15)>`) and the previous (`oce-<slug>-<h(id,12)>`) managed name forms. */
const MANAGED_NAME = "^oce-([0-9a-f]{15}|[a-z0-9]([-a-z0-9]*[a-z0-9])?-[0-9a-f]{12})$";
const TENANT_ID = ANNOTATIONS.namespaceId;
const POD_SECURITY = [LABELS.podSecurityEnforce, LABELS.podSecurityAudit, LABELS.podSecurityWarn];

/** True when `labels`/`annotations` carry the tenant markers: manager label, same ID twice. */
const ownedBy = (labels: string, annotations: string) =>
  `${is(labels, LABELS.managedBy, MARKER_VALUES.managedBy)} && ${json(TENANT)} in ${labels} && ${at(annotations, TENANT_ID)} == optional.of(${labels}[${json(TENANT)}])`;

const unchanged = (oldMap: string, newMap: string, k: string) =>
  `((${k} in ${oldMap}) == (${k} in ${newMap}) && (!(${k} in ${oldMap}) || ${oldMap}[${k}] == ${newMap}[${k}]))`;

function namespacePolicySpec(opts: AdmissionPolicyOptions) {
  const managedOld = `${is("variables.oldLabels", LABELS.managedBy, MARKER_VALUES.managedBy)} && !(${json(ANNOTATIONS.lifecycle)} in variables.oldAnnotations)`;
  const op = (o: string) => `request.operation != ${json(o)}`;
  const created = [
    ownedBy("variables.newLabels", "variables.newAnnotations"),
    ...POD_SECURITY.map((k) => is("variables.newLabels", k, MARKER_VALUES.podSecurityLevel)),
    `!(${json(ANNOTATIONS.lifecycle)} in variables.newAnnotations)`,
  ].join(" && ");
  const tenantKeys = [
    ["Labels", TENANT],
    ["Labels", LABELS.gatewayNamespace],
    ["Annotations", TENANT_ID],
  ] as const;
  const keep = tenantKeys
    .map(
      ([m, k]) =>
        `(!(${json(k)} in variables.old${m}) || ${at(`variables.new${m}`, k)} == optional.of(variables.old${m}[${json(k)}]))`,
    )
    .join(" && ");
  const adds = tenantKeys
    .map(([m, k]) => `(${json(k)} in variables.new${m} && !(${json(k)} in variables.old${m}))`)
    .join(" || ");
  const sameId = `${at("variables.newAnnotations", TENANT_ID)} == ${at("variables.newLabels", TENANT)} && (!(${json(LABELS.gatewayNamespace)} in variables.newLabels) || ${at("variables.newLabels", LABELS.gatewayNamespace)} == ${at("variables.newLabels", TENANT)})`;
  return {
    failurePolicy: "Fail",
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [""],
          apiVersions: ["v1"],
          operations: ["CREATE", "UPDATE", "DELETE"],
          resources: ["namespaces", "namespaces/finalize", "namespaces/status"],
        },
      ],
    },
    matchConditions: [identityCondition(opts)],
    variables: [
      ...METADATA_VARIABLES,
      { name: "managedOld", expression: managedOld },
      {
        name: "labelKeys",
        expression: `${json([TENANT, LABELS.gatewayNamespace, LABELS.gatewayMembership])} + (variables.managedOld ? ${json(POD_SECURITY)} : [])`,
      },
      { name: "openshellLabels", expression: json(sortedMap(opts.openshellNamespaceLabels)) },
    ],
    validations: [
      rule(`request.?subResource.orValue("") == ""`, ADMISSION_MESSAGES.subresource),
      rule(
        `${op("CREATE")} || object.metadata.name.matches("^oce-[0-9a-f]{15}$")`,
        ADMISSION_MESSAGES.createName,
      ),
      rule(`${op("CREATE")} || (${created})`, ADMISSION_MESSAGES.createMarkers),
      rule(
        `${op("DELETE")} || (${ownedBy("variables.oldLabels", "variables.oldAnnotations")} && !(${json(ANNOTATIONS.lifecycle)} in variables.oldAnnotations) && oldObject.metadata.name.matches(${json(MANAGED_NAME)}))`,
        ADMISSION_MESSAGES.deleteNamespace,
      ),
      rule(
        `${op("UPDATE")} || ([variables.oldLabels, variables.newLabels].all(m, m.all(k, k in variables.labelKeys || (k in variables.openshellLabels && variables.newLabels[?k] == optional.of(variables.openshellLabels[k]) && ${json(TENANT)} in variables.newLabels) || ${unchanged("variables.oldLabels", "variables.newLabels", "k")})) && [variables.oldAnnotations, variables.newAnnotations].all(m, m.all(k, k == ${json(TENANT_ID)} || ${unchanged("variables.oldAnnotations", "variables.newAnnotations", "k")})))`,
        ADMISSION_MESSAGES.foreignKeys,
      ),
      rule(`${op("UPDATE")} || (${keep})`, ADMISSION_MESSAGES.tenantMarkers),
      rule(
        `${op("UPDATE")} || !(${adds}) || ((variables.managedOld || ${is("variables.oldAnnotations", ANNOTATIONS.lifecycle, LIFECYCLE.external)}) && ${sameId})`,
        ADMISSION_MESSAGES.bindExternal,
      ),
    ],
  };
}

const OWNED_RESOURCES = [
  {
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: [
      "configmaps",
      "limitranges",
      "persistentvolumeclaims",
      "resourcequotas",
      "secrets",
      "serviceaccounts",
      "services",
    ],
  },
  {
    apiGroups: ["networking.k8s.io"],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: ["networkpolicies"],
  },
  {
    apiGroups: ["apps"],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: ["deployments"],
  },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: ["rolebindings", "roles"],
  },
];

function ownedObjectsPolicySpec(opts: AdmissionPolicyOptions) {
  const tenantOf = (labels: string) => `${labels}[${json(TENANT)}]`;
  return {
    failurePolicy: "Fail",
    matchConstraints: { resourceRules: OWNED_RESOURCES },
    matchConditions: [identityCondition(opts)],
    variables: [
      ...METADATA_VARIABLES,
      {
        name: "namespaceTenant",
        expression: `namespaceObject.metadata.?labels.orValue({})[?${json(TENANT)}]`,
      },
    ],
    validations: [
      rule(
        `request.operation == "CREATE" || (${ownedBy("variables.oldLabels", "variables.oldAnnotations")})`,
        ADMISSION_MESSAGES.ownedOld,
      ),
      rule(
        `request.operation == "DELETE" || (${ownedBy("variables.newLabels", "variables.newAnnotations")})`,
        ADMISSION_MESSAGES.ownedNew,
      ),
      rule(
        `(request.operation == "CREATE" || variables.namespaceTenant == optional.of(${tenantOf("variables.oldLabels")})) && (request.operation == "DELETE" || variables.namespaceTenant == optional.of(${tenantOf("variables.newLabels")}))`,
        ADMISSION_MESSAGES.ownedTenant,
      ),
    ],
  };
}

function roleBindingsPolicySpec(opts: AdmissionPolicyOptions) {
  const nsLabels = "namespaceObject.metadata.?labels.orValue({})";
  const nsAnnotations = "namespaceObject.metadata.?annotations.orValue({})";
  return {
    failurePolicy: "Fail",
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          apiVersions: ["v1"],
          operations: ["CREATE", "UPDATE"],
          resources: ["rolebindings"],
        },
      ],
    },
    matchConditions: [identityCondition(opts)],
    variables: [
      {
        name: "tenantRole",
        expression: `object.roleRef.kind == "ClusterRole" && object.roleRef.name in ${json([TENANT_CLUSTER_ROLES.worker, TENANT_CLUSTER_ROLES.api])}`,
      },
      {
        name: "declared",
        expression: json(
          opts.declaredRoleBindings.map((d) => ({ kind: d.kind, name: d.name, role: d.role })),
        ),
      },
      { name: "subjects", expression: json(opts.subjects.map(subjectKey)) },
    ],
    validations: [
      rule(
        "variables.tenantRole || variables.declared.exists(d, d.name == object.metadata.name && d.kind == object.roleRef.kind && d.role == object.roleRef.name)",
        ADMISSION_MESSAGES.bindRole,
      ),
      rule(
        `!variables.tenantRole || (${is(nsLabels, LABELS.managedBy, MARKER_VALUES.managedBy)} && !(${json(ANNOTATIONS.lifecycle)} in ${nsAnnotations}) && namespaceObject.metadata.name.matches(${json(MANAGED_NAME)}) && ${at(nsLabels, TENANT)} == object.metadata.?labels.orValue({})[?${json(TENANT)}])`,
        ADMISSION_MESSAGES.bindNamespace,
      ),
      rule(
        '!variables.tenantRole || (object.?subjects.orValue([]).size() > 0 && object.?subjects.orValue([]).all(s, s.kind + ":" + s.?namespace.orValue("") + ":" + s.name in variables.subjects))',
        ADMISSION_MESSAGES.bindSubjects,
      ),
    ],
  };
}

function identityCondition(opts: AdmissionPolicyOptions) {
  return {
    name: "openclaw-enterprise-identity",
    expression: `request.userInfo.username in ${json(opts.subjects.map(usernameOf))}`,
  };
}

function sortedMap(map: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

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
    const roleRef = m.roleRef as { kind?: unknown; name?: unknown } | undefined;
    const name = (m.metadata as { name?: unknown } | undefined)?.name;
    return m.kind === "RoleBinding" &&
      typeof roleRef?.kind === "string" &&
      typeof roleRef.name === "string" &&
      typeof name === "string"
      ? [{ kind: roleRef.kind, name, role: roleRef.name }]
      : [];
  });
  return { openshellNamespaceLabels: openshell.operatorNamespaceLabels, declaredRoleBindings };
}
