/**
 * Verifying the preprovisioned namespace (preprovisioned.md §3) — never repairing it.
 *
 * The operator prepared one namespace, `oce-<h(id, 15)>`, for the bound Namespace ID; the
 * controller may only `get` it. Every requirement of the seed's table is checked and every
 * failure is reported (the worker's startup check and `occ preprovisioned verify` list them
 * all); the pass outcome carries the seed's sentence. Requirement texts name keys and the
 * expected values (which are the Installation's own), never an observed value.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import type { K8sNamespace, StringMap } from "../placement/k8s-objects.js";
import { isTerminating } from "../placement/k8s-objects.js";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  MARKER_VALUES,
  POD_SECURITY_LABELS,
  metadataValue,
} from "../placement/markers.js";
import { currentManagedName, gatewayMembership } from "../placement/naming.js";
import { PREPROVISIONED_DELETION_REFUSAL } from "../placement/namespace-deletion.js";
import { notDone, type NotDone } from "../placement/outcomes.js";
import type { PreprovisionedBinding } from "./binding.js";

/** The operator-facing sentences of the profile, verbatim from seed 001 where it states them. */
export const PREPROVISIONED_MESSAGES = {
  namespaceMismatch:
    "Preprovisioned Kubernetes Namespace identity, ownership, gateway membership, Pod Security or lifecycle does not match the Installation.",
  sealedPolicies: "The sealed Namespace contains an undeclared or changed NetworkPolicy.",
  operatorResource: "Operator workspace resource does not match the OpenShell configuration.",
  deletion: PREPROVISIONED_DELETION_REFUSAL,
  missing:
    "The preprovisioned Kubernetes namespace does not exist; the operator creates it (occ preprovisioned render) — OCC never does.",
  otherNamespace:
    "This Installation is bound to one preprovisioned Namespace; no other platform Namespace can be placed.",
  existingNamespace:
    "existingNamespace placement is not available with a preprovisioned Namespace binding.",
  changedOwnedObject:
    "An OCC object in the preprovisioned Namespace differs from the Installation configuration; OCC does not overwrite it there — delete it and OCC recreates it.",
} as const;

/** One failing requirement and how the operator fixes it. */
export interface FailedRequirement {
  readonly requirement: string;
  readonly fix: string;
}

/** What the namespace must match. */
export interface PreprovisionedExpectation {
  readonly binding: PreprovisionedBinding;
  readonly routing: GatewayRouting | null;
  readonly operatorNamespaceLabels: StringMap;
}

/** Every label and annotation the seed's table requires on the namespace, with its value. */
export function requiredNamespaceMetadata(
  namespaceId: string,
  routing: GatewayRouting,
  operatorNamespaceLabels: StringMap,
): { readonly labels: StringMap; readonly annotations: StringMap } {
  return {
    annotations: {
      [ANNOTATIONS.lifecycle]: LIFECYCLE.preprovisioned,
      [ANNOTATIONS.namespaceId]: namespaceId,
    },
    labels: {
      ...operatorNamespaceLabels,
      [LABELS.managedBy]: MARKER_VALUES.managedBy,
      [LABELS.namespace]: namespaceId,
      [LABELS.gatewayNamespace]: namespaceId,
      [LABELS.gatewayMembership]: gatewayMembership(routing.gatewayNamespace, routing.gatewayName),
      ...Object.fromEntries(POD_SECURITY_LABELS.map((k) => [k, MARKER_VALUES.podSecurityLevel])),
    },
  };
}

/**
 * Every failing requirement of §3 on the observed namespace (`null`: it does not exist):
 * its name is the derived one, its `metadata.uid` is the bound UID, each required annotation
 * and label holds its value (the OpenShell namespace labels included), and it is `Active`
 * with no `deletionTimestamp`. Gateway routing missing from the Installation is itself a
 * failure: the membership label cannot be checked without it.
 */
export function preprovisionedNamespaceFailures(
  namespace: K8sNamespace | null,
  expected: PreprovisionedExpectation,
): FailedRequirement[] {
  const id = expected.binding.namespaceId;
  const name = currentManagedName(id);
  if (namespace === null) {
    return [
      {
        requirement: `namespace ${name} exists`,
        fix: "create it with `occ preprovisioned render --namespace-id <id> | kubectl apply -f -`",
      },
    ];
  }
  const failures: FailedRequirement[] = [];
  const metadata = namespace.metadata;
  if (metadata?.name !== name) {
    failures.push({
      requirement: `name is ${name}`,
      fix: "bind the namespace with the derived name",
    });
  }
  if (metadata?.uid !== expected.binding.uid) {
    failures.push({
      requirement: "metadata.uid equals the bound uid",
      fix: "set preprovisionedNamespace.uid to the namespace's metadata.uid (occ preprovisioned values), or restore the namespace",
    });
  }
  if (expected.routing === null) {
    failures.push({
      requirement: "the Installation configures gateway routing",
      fix: "set network.gatewayRouting (the membership label value derives from it)",
    });
  }
  const routing = expected.routing ?? { gatewayNamespace: "", gatewayName: "", envoyNamespace: "" };
  const required = requiredNamespaceMetadata(id, routing, expected.operatorNamespaceLabels);
  const check = (kind: "annotation" | "label", entries: StringMap) => {
    for (const [key, value] of Object.entries(entries)) {
      if (kind === "label" && key === LABELS.gatewayMembership && expected.routing === null)
        continue;
      if (metadataValue(metadata, kind, key) !== value) {
        failures.push({
          requirement: `${kind} ${key}=${value}`,
          fix: `set ${kind} ${key} to "${value}" on the namespace`,
        });
      }
    }
  };
  check("annotation", required.annotations);
  check("label", required.labels);
  if (isTerminating(namespace)) {
    failures.push({
      requirement: "the namespace is not terminating",
      fix: "the namespace is being deleted: recreate it and update the bound uid",
    });
  } else if (namespace.status?.phase !== "Active") {
    failures.push({
      requirement: "status.phase is Active",
      fix: "wait until the namespace is Active",
    });
  }
  return failures;
}

/** The result of verifying the namespace for a pass. */
export type PreprovisionedVerdict =
  | { readonly verdict: "verified"; readonly name: string; readonly uid: string }
  | {
      readonly verdict: "refused";
      readonly result: NotDone;
      readonly failures: readonly FailedRequirement[];
    };

/**
 * The pass verdict: missing → `KUBERNETES_NAMESPACE_MISSING`; any other failed requirement,
 * or a recorded UID that differs from the observed one → `KUBERNETES_OWNERSHIP_CONFLICT` with
 * the seed's sentence followed by the failing requirements' keys.
 */
export function verifyPreprovisionedNamespace(
  namespace: K8sNamespace | null,
  expected: PreprovisionedExpectation,
  recordedUid: string | null,
): PreprovisionedVerdict {
  const failures = preprovisionedNamespaceFailures(namespace, expected);
  if (namespace === null) {
    return {
      verdict: "refused",
      result: notDone("KUBERNETES_NAMESPACE_MISSING", PREPROVISIONED_MESSAGES.missing),
      failures,
    };
  }
  if (recordedUid !== null && namespace.metadata?.uid !== recordedUid) {
    failures.push({
      requirement: "metadata.uid equals the uid OCC recorded",
      fix: "the namespace was recreated; OCC will not use the new one",
    });
  }
  const uid = namespace.metadata?.uid;
  if (failures.length > 0 || uid === undefined) {
    return {
      verdict: "refused",
      result: namespaceMismatch(failures),
      failures,
    };
  }
  return { verdict: "verified", name: currentManagedName(expected.binding.namespaceId), uid };
}

/** The seed's sentence, then the keys of what failed (within the reason's length limit). */
export function namespaceMismatch(failures: readonly FailedRequirement[]): NotDone {
  const detail = failures.map((f) => f.requirement.replace(/=.*$/, "")).join("; ");
  return notDone(
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `${PREPROVISIONED_MESSAGES.namespaceMismatch}${detail === "" ? "" : ` Failing: ${detail}`}`,
  );
}
