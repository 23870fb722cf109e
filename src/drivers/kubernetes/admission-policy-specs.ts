/**
 * The CEL of the three admission policies (admission-policies.ts): the namespaces policy (names,
 * markers, foreign keys, binding), the owned-objects policy (markers and tenant of every object
 * OCC writes) and the RoleBindings policy (which roles, in which namespaces, for whom). Marker
 * keys are those of src/domain/placement/markers.ts.
 */
import { ANNOTATIONS, LABELS, LIFECYCLE, MARKER_VALUES } from "../../domain/placement/markers.js";
import { TENANT_CLUSTER_ROLES } from "./rbac-rules.js";
import {
  ADMISSION_MESSAGES,
  subjectKey,
  usernameOf,
  type AdmissionPolicyOptions,
} from "./admission-vocabulary.js";

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

export function namespacePolicySpec(opts: AdmissionPolicyOptions) {
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

export function ownedObjectsPolicySpec(opts: AdmissionPolicyOptions) {
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

export function roleBindingsPolicySpec(opts: AdmissionPolicyOptions) {
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
