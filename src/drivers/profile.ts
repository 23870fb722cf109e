/**
 * The process's profile (preprovisioned.md §2), chosen once at startup from the configuration
 * and the `OCC_PREPROVISIONED_NAMESPACE` binding, and passed explicitly to every Driver that
 * resolves a tenant's namespace. There is no default: a Driver cannot be built without saying
 * which profile it runs in.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import type { PreprovisionedBinding } from "../domain/preprovisioned/binding.js";
import type { PreprovisionedExpectation } from "../domain/preprovisioned/namespace.js";

export type DriverProfile =
  /** Managed and external placement: namespaces are found by their claim labels. */
  | { readonly kind: "normal" }
  /** One bound namespace, read by name and verified against `expected`, never listed. */
  | { readonly kind: "preprovisioned"; readonly expected: PreprovisionedExpectation };

/** What the preprovisioned namespace must match, from the configuration and the binding. */
export function preprovisionedExpectationOf(
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): PreprovisionedExpectation {
  return {
    binding,
    routing: config.compute.gatewayRouting,
    operatorNamespaceLabels: config.openshell?.operatorNamespaceLabels ?? {},
  };
}

/** The profile `binding` selects: `null` → normal. */
export function driverProfileOf(
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
): DriverProfile {
  return binding === null
    ? { kind: "normal" }
    : { kind: "preprovisioned", expected: preprovisionedExpectationOf(config, binding) };
}
