/**
 * What `occ namespaces … --wait` adds to a progress line when the worker waits for
 * permissions: the exact command that grants them, chosen by the reason code the pass
 * reported — so the hint stays right whichever reason the worker gives (a code that means the
 * worker binds the namespace itself gets no command: nothing is needed from the operator).
 */

/** The reason code of a pass waiting for an operator-granted RoleBinding. */
export const PERMISSION_PENDING = "KUBERNETES_PERMISSION_PENDING";

interface WaitingNamespace {
  readonly id: string;
  readonly placement: { readonly mode: string; readonly kubernetesNamespace: string | null };
  readonly statusReason: { readonly code: string } | null;
}

/** The grant command for `n`, or null when its reason needs nothing from the operator. */
export function grantHintOf(n: WaitingNamespace): string | null {
  if (n.statusReason?.code !== PERMISSION_PENDING) return null;
  if (n.placement.mode === "preprovisioned") {
    return `grant it: occ preprovisioned render --namespace-id ${n.id} --values my-values.yaml -n <release-ns> | kubectl apply -f -`;
  }
  return `grant it: occ namespaces grants ${n.id} | kubectl apply -f -`;
}
