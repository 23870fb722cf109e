/** The one builder of the Installation's workload settings (`workloads.*`) for the tests. */
import type { WorkloadImages } from "../../src/domain/index.js";

/** Workload settings: small test values, with `overrides` on top. */
export function workloadSettings(overrides: Partial<WorkloadImages> = {}): WorkloadImages {
  return {
    gatewayImage: "gw:1",
    harnessImage: "hn:1",
    gatewayResources: { cpu: "500m", memory: "512Mi" },
    harnessResources: { cpu: "1", memory: "1Gi" },
    gatewayStateSize: "1Gi",
    workspaceSize: "10Gi",
    storageClassName: undefined,
    ...overrides,
  };
}
