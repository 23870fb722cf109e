/**
 * Which Compute Driver the Installation selected (control-plane.md §7), as far as the API
 * needs to know: adopting an existing namespace is only possible with the bundled Kubernetes
 * Compute Driver, and every other selection is refused with 409 (§2 step 4).
 */

/** The bundled implementations' names and installed driver modules. */
export type ComputeSelection =
  | { readonly source: "bundled"; readonly name: string }
  | { readonly source: "installed"; readonly module: string };

/** The default selection. */
export const BUNDLED_KUBERNETES_COMPUTE: ComputeSelection = {
  source: "bundled",
  name: "kubernetes",
};

/** True only for the bundled Kubernetes Compute Driver. */
export function isBundledKubernetes(selection: ComputeSelection): boolean {
  return selection.source === "bundled" && selection.name === "kubernetes";
}

/** The 409 message of control-plane.md §2 step 4, verbatim. */
export const ADOPTION_REQUIRES_KUBERNETES =
  "Existing namespace adoption requires the bundled Kubernetes Compute Driver.";
