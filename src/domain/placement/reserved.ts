/**
 * Validation of `existingNamespace` (placement.md §8, beyond the seeds).
 *
 * An administrator may only select an operator-owned namespace for adoption. System
 * namespaces, the controller's own namespace and names of the managed form are refused before
 * anything is stored (400), because adopting them would let tenant workloads run beside
 * cluster components, beside OCC itself, or inside another tenant's managed namespace.
 */
import { isDns1123Label, MANAGED_NAME_PREFIX } from "./naming.js";
import { err, ok, type Result } from "../input/result.js";

/** The API field, named in every message. */
export const EXISTING_NAMESPACE_FIELD = "existingNamespace";

/** Why a value was refused. */
export type ExistingNamespaceRejection =
  | "not-dns-label"
  | "reserved-kubernetes"
  | "reserved-openshift"
  | "reserved-controller"
  | "reserved-managed";

/** A refusal with a message that names the field and the fix. */
export interface ExistingNamespaceError {
  readonly rejection: ExistingNamespaceRejection;
  readonly message: string;
}

const KUBERNETES_RESERVED = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

/**
 * Accepts `value` when it is a DNS-1123 label (≤ 63) and none of: `default`, `kube-system`,
 * `kube-public`, `kube-node-lease`, any `kube-*`, `openshift` or any `openshift-*`,
 * `controllerNamespace` (where OCC runs), or the managed form `oce-*`. The message echoes the
 * value only once it is known to be a plain DNS label.
 */
export function validateExistingNamespace(
  value: unknown,
  controllerNamespace: string,
): Result<string, ExistingNamespaceError> {
  const field = EXISTING_NAMESPACE_FIELD;
  if (typeof value !== "string" || !isDns1123Label(value)) {
    return err({
      rejection: "not-dns-label",
      message: `${field} must be a DNS-1123 label: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit`,
    });
  }
  const fix = "select an operator-owned namespace prepared for this tenant";
  if (KUBERNETES_RESERVED.has(value) || value.startsWith("kube-")) {
    return err({
      rejection: "reserved-kubernetes",
      message: `${field} "${value}" is reserved for Kubernetes itself; ${fix}`,
    });
  }
  if (value === "openshift" || value.startsWith("openshift-")) {
    return err({
      rejection: "reserved-openshift",
      message: `${field} "${value}" is reserved for OpenShift; ${fix}`,
    });
  }
  if (value === controllerNamespace) {
    return err({
      rejection: "reserved-controller",
      message: `${field} "${value}" is the namespace the OCC controller runs in; ${fix}`,
    });
  }
  if (value.startsWith(MANAGED_NAME_PREFIX)) {
    return err({
      rejection: "reserved-managed",
      message: `${field} "${value}" has the managed form ${MANAGED_NAME_PREFIX}*; omit ${field} for a managed namespace, or ${fix}`,
    });
  }
  return ok(value);
}
