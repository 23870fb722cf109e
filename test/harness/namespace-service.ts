/**
 * The Namespace service's dependencies as the API process builds them (bundled Kubernetes
 * Compute, the chart's controller namespace, no content checks), over `db` and a queue policy.
 */
import type { WorkQueuePolicy } from "../../src/queue/policy.js";
import type { Db } from "../../src/store/db.js";
import { namespaceQueueConfig } from "../../src/work/namespace-work.js";

export function namespaceServiceDeps(db: Db, policy: WorkQueuePolicy) {
  return {
    db,
    queue: namespaceQueueConfig({ policy }),
    compute: { source: "bundled", name: "kubernetes" } as const,
    controllerNamespace: "openclaw-system",
    contentChecks: [],
  };
}
