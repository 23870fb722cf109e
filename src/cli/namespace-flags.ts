/**
 * Checks of `occ namespaces create` flags made before anything is sent: a value the API would
 * refuse anyway is refused here, naming the flag and the fix, so a typo costs no request (and
 * no audit event of a refused request).
 */
import { isDns1123Label } from "../domain/placement/naming.js";

/**
 * `--existing-namespace`: absent (a managed namespace), or a DNS-1123 label of 1–63
 * characters. An explicit empty value (`--existing-namespace ""`, `--existing-namespace=`) is
 * refused, not taken for "managed". Whether the name is reserved (`kube-*`, the controller's
 * own namespace, …) is the API's to say: only it knows where the controller runs.
 */
export function existingNamespaceFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === "") {
    throw new Error(
      "--existing-namespace is empty: give the operator-owned Kubernetes namespace to adopt, " +
        "or leave the flag out for a managed namespace; nothing was sent",
    );
  }
  if (!isDns1123Label(value)) {
    throw new Error(
      `--existing-namespace ${JSON.stringify(value.slice(0, 80))} is not a Kubernetes namespace name: ` +
        "give a DNS-1123 label of 1 to 63 lowercase letters, digits or '-', starting and ending " +
        "with a letter or digit (kubectl get namespaces lists them); nothing was sent",
    );
  }
  return value;
}
