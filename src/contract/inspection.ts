/**
 * What the console asks the API about Kubernetes, read-only (issue 37): the preflight of a
 * candidate namespace before an administrator selects it, the namespaces that may be selected,
 * a Namespace's timeline (audit events and its Kubernetes Events), the grants an operator
 * applies, and the Installation's profile and admission policies.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CHECKS } from "../domain/placement/violations.js";
import { AuditEventSchema } from "./audit.js";
import { Closed, literalUnion, Nullable } from "./envelopes.js";

const DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/** `GET /namespaces/preflight?existingNamespace=`: the candidate to check. */
export const PreflightQuerySchema = Closed({
  existingNamespace: Type.String({
    minLength: 1,
    maxLength: 63,
    pattern: DNS_LABEL,
    description: "The operator-owned Kubernetes namespace an administrator would select.",
  }),
});
export type PreflightQuery = Static<typeof PreflightQuerySchema>;

const FailureSchema = Closed({
  check: literalUnion(CHECKS),
  code: Type.String({ description: "The outcome code the worker would report." }),
  key: Nullable(Type.String({ description: "The label, annotation or binding concerned." })),
  message: Type.String({ description: "What is wrong and how to fix it." }),
});

export const PreflightResultSchema = Closed({
  existingNamespace: Type.String(),
  ok: Type.Boolean({ description: "True when the worker's adoption checks would all pass." }),
  failures: Type.Array(FailureSchema),
});
export type PreflightResultView = Static<typeof PreflightResultSchema>;

/** `GET /namespaces/selectable`: namespaces without tenant markers, not reserved, by name. */
export const SelectableListSchema = Type.Array(Closed({ name: Type.String() }));
export type SelectableView = Static<typeof SelectableListSchema>;

export const KubernetesEventSchema = Closed({
  type: Type.String({ description: "Normal or Warning." }),
  reason: Type.String(),
  message: Type.String(),
  object: Type.String({ description: "`Kind/name` of the object it is about." }),
  source: Type.String(),
  count: Type.Integer(),
  lastAt: Nullable(Type.String()),
});
export type KubernetesEventView = Static<typeof KubernetesEventSchema>;

const RefusalSchema = Closed({ code: Type.String(), message: Type.String() });

/** `GET /namespaces/{id}/timeline`. */
export const TimelineSchema = Closed({
  audit: Type.Array(AuditEventSchema, {
    description: "The Namespace's audit events, newest first.",
  }),
  kubernetesEvents: Type.Array(KubernetesEventSchema, {
    description: "The Events in its bound Kubernetes namespace, newest first.",
  }),
  /** Why the Events could not be read (then `kubernetesEvents` is empty). */
  kubernetesEventsRefusal: Nullable(RefusalSchema),
});
export type TimelineView = Static<typeof TimelineSchema>;

/** `GET /namespaces/{id}/grants`. */
export const GrantsSchema = Closed({
  kubernetesNamespace: Type.String(),
  yaml: Type.String({ description: "The RoleBindings the operator applies, as YAML." }),
  command: Type.String({ description: "The same, applied with kubectl." }),
});
export type GrantsView = Static<typeof GrantsSchema>;

/** `GET /installation`. */
export const InstallationSchema = Closed({
  profile: literalUnion(["normal", "preprovisioned"] as const),
  boundNamespace: Nullable(
    Type.String({ description: "The preprovisioned profile's one Kubernetes namespace." }),
  ),
  admissionPolicies: Type.Array(
    Closed({ name: Type.String(), policy: Type.Boolean(), binding: Type.Boolean() }),
  ),
  admissionPoliciesRefusal: Nullable(RefusalSchema),
});
export type InstallationView = Static<typeof InstallationSchema>;
