import type { DeployRevisionResult, TeardownAgentResult } from "../../../domain/index.js";
import type { AgentTeardownInput, RevisionPassInput, WorkloadDriver } from "../../workloads.js";
import type { KubernetesWorkloadDriverOptions } from "./context.js";
import { deployRevision } from "./deploy.js";
import { teardownAgent } from "./teardown.js";

export type { KubernetesWorkloadDriverOptions } from "./context.js";

/**
 * The workload side of the bundled Kubernetes Compute Driver: an Agent's gateway, harness,
 * configuration, credentials and claims in the tenant's bound namespace. See `WorkloadDriver`.
 */
export class KubernetesWorkloadDriver implements WorkloadDriver {
  constructor(private readonly opts: KubernetesWorkloadDriverOptions) {}

  deployRevision(input: RevisionPassInput): Promise<DeployRevisionResult> {
    return deployRevision(this.opts, input);
  }

  teardownAgent(input: AgentTeardownInput): Promise<TeardownAgentResult> {
    return teardownAgent(this.opts, input);
  }
}
