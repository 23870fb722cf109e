import {
  codeForKubernetesFailure,
  notDone,
  type KubernetesFailure,
  type NotDone,
  type VerificationStage,
} from "../../../domain/index.js";
import { ADMISSION_MESSAGES, REFUSAL_PREFIX } from "../admission-policies.js";
import { TENANT_CLUSTER_ROLES } from "../rbac-rules.js";
import { isKubeError, type KubeApiError } from "../client/index.js";

function failureOf(err: KubeApiError): KubernetesFailure {
  if (err.category === "timeout") return { kind: "timeout" };
  if (err.status === undefined) return { kind: "network" };
  return { kind: "status", status: err.status };
}

/**
 * Turns a failed Kubernetes request into the pass outcome. Expected answers (404 where absence
 * has a meaning, 409 on a guarded write) are handled by the caller before this; anything that
 * is not a Kubernetes answer at all is a programming error and is rethrown.
 *
 * `namespace` is the tenant's own selected or bound namespace, safe to name in the reason; it
 * lets a missing-permission reason say exactly which RoleBinding the operator must create;
 * `clusterRole` is the tenant role that grants what was refused (default: tenant-worker).
 */
export function outcomeOfKubeError(
  err: unknown,
  stage: VerificationStage,
  what: string,
  namespace?: string,
  clusterRole: string = TENANT_CLUSTER_ROLES.worker,
): NotDone {
  if (!isKubeError(err)) throw err;
  const refusal = admissionRefusal(err);
  if (refusal !== null) {
    return notDone(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `the API server's admission policy refused to ${what}: ${refusal}`,
    );
  }
  const code = codeForKubernetesFailure(failureOf(err), stage);
  const answer = err.status !== undefined ? `answered ${err.status}` : `failed (${err.category})`;
  if (code === "KUBERNETES_PERMISSION_PENDING") {
    return notDone(
      code,
      `the worker may not ${what} in namespace ${namespace ?? "?"}: grant the worker RoleBinding ` +
        `(ClusterRole ${clusterRole}) there; provisioning resumes by itself`,
    );
  }
  return notDone(code, `Kubernetes ${answer} to ${what}`);
}

/**
 * The message of an OCC admission policy's refusal (src/drivers/kubernetes/admission-policies.ts),
 * or null for any other answer. Such a 403 is not a missing RoleBinding: the API server refused
 * a write OCC must never make, so the pass stops with the policy's reason instead of waiting.
 */
export function admissionRefusal(err: KubeApiError): string | null {
  if (err.status !== 403) return null;
  const at = err.message.indexOf(REFUSAL_PREFIX);
  return err.message.includes("ValidatingAdmissionPolicy") && at !== -1
    ? err.message.slice(at + REFUSAL_PREFIX.length).trim()
    : null;
}

const TENANT_REFUSAL = ADMISSION_MESSAGES.ownedTenant.slice(REFUSAL_PREFIX.length).trim();

/**
 * Whether a pass result is the admission policy's refusal of an owned object whose tenant is
 * not the one its namespace is bound to, as the API server's admission view sees the namespace.
 */
export function isTenantViewRefusal(result: NotDone): boolean {
  return result.code === "KUBERNETES_OWNERSHIP_CONFLICT" && result.reason.endsWith(TENANT_REFUSAL);
}
