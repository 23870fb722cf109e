/**
 * The Compute selection as the API and bootstrap report it. The runtime itself (clients,
 * Drivers, Events, counters) is built by `drivers/runtime.ts`.
 */
import type { ComputeSelection } from "../services/compute-selection.js";
import type { InstallationConfig } from "../config/installation-config.js";

/** What the API needs to know of the Compute selection. */
export function computeSelectionOf(config: InstallationConfig): ComputeSelection {
  const compute = config.drivers.compute;
  return compute === "kubernetes"
    ? { source: "bundled", name: "kubernetes" }
    : { source: "installed", module: compute.module };
}
