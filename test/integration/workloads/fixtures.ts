/**
 * Agents end to end on the real cluster and PostgreSQL: the API in-process as `occ-api`
 * (tenant fixtures), and the worker's Agent passes run as `occ-worker` with the chart's rules
 * through the same pass function the worker process runs.
 */
import { expect, inject } from "vitest";
import {
  isAgentId,
  isRevisionId,
  LABELS,
  type AgentId,
  type RevisionId,
  agentObjectNames,
  type NamespaceId,
  type StringMap,
} from "../../../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  KubernetesWorkloadDriver,
  type KubernetesWorkloadDriverOptions,
} from "../../../src/drivers/kubernetes/workloads/driver.js";
import { AGENT_WORK_KINDS } from "../../../src/work/agent-work.js";
import { agentWorkSubject } from "../../../src/work/lanes.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { runAgentPass } from "../../../src/worker/agent-pass.js";
import type { PassSummary } from "../../../src/worker/pass-runner.js";
import { kubeAs, rawGet, uniqueName } from "../../harness/kube.js";
import { workloadSettings } from "../../harness/workloads.js";
import { admin, settings } from "../compute/fixtures.js";
import { statusWriter } from "../../harness/status-writer.js";
import { call, type TenantApi } from "../tenant/fixtures.js";

const SMALL = { cpu: "250m", memory: "256Mi" };
export const WORKLOADS = workloadSettings({
  gatewayImage: "registry.example/openclaw:1",
  harnessImage: "registry.example/openclaw-harness:1",
  gatewayResources: SMALL,
  harnessResources: SMALL,
  workspaceSize: "2Gi",
});

/** A Workload Driver as `occ-worker`, with the chart's rules only. */
export function workerWorkloads(extra: Partial<KubernetesWorkloadDriverOptions> = {}): {
  driver: KubernetesWorkloadDriver;
  client: ObjectClient;
} {
  const client = createObjectClient(loadKubeConfig(inject("env").kubeconfigs["occ-worker"]));
  const driver = new KubernetesWorkloadDriver({
    client,
    profile: { kind: "normal" },
    settings: settings(),
    workloads: WORKLOADS,
    egressAuthority: null,
    ...extra,
  });
  return { driver, client };
}

/**
 * Claims Agent work until it gets the item of `agentId` (releasing others) and runs one pass,
 * exactly as the worker does.
 */
export async function agentPass(
  api: TenantApi,
  agentId: AgentId,
  extra: Partial<KubernetesWorkloadDriverOptions> = {},
): Promise<PassSummary> {
  const queue = createWorkQueue({
    kinds: AGENT_WORK_KINDS,
    policy: {
      retryBackoff: { baseMs: 1, maxMs: 1, jitter: 0 },
      pendingBackoff: { baseMs: 1, maxMs: 1, jitter: 0 },
    },
  });
  const { driver, client } = workerWorkloads(extra);
  try {
    for (let round = 0; round < 50; round += 1) {
      const claim = await queue.claim(api.db, { owner: "test" });
      if (claim === null) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      if (claim.item.subject === agentWorkSubject(agentId)) {
        return await runAgentPass({ db: api.db, queue, workloads: driver }, claim);
      }
      await queue.release(api.db, claim.lease);
    }
    throw new Error("no claimable work for the Agent");
  } finally {
    client.close();
  }
}

/** Creates a Configuration and an Agent through the API; returns the Agent's ID. */
export async function createAgent(
  api: TenantApi,
  id: NamespaceId,
  executionMode: "embedded" | "dedicated",
  values: Record<string, unknown> = { model: "m1" },
  serviceAccountId?: string,
): Promise<{ agentId: AgentId; configurationId: string }> {
  const cfg = await call(api, "POST", `/namespaces/${id}/configurations`, {
    body: { kind: "agent", values },
  });
  expect(cfg.status, cfg.text).toBe(201);
  const configurationId = (cfg.body.data as { id: string }).id;
  const agent = await call(api, "POST", `/namespaces/${id}/agents`, {
    body: {
      name: uniqueName("agent"),
      configurationId,
      executionMode,
      ...(serviceAccountId === undefined ? {} : { serviceAccountId }),
    },
  });
  expect(agent.status, agent.text).toBe(201);
  const agentId = (agent.body.data as { id: string }).id;
  if (!isAgentId(agentId)) throw new Error(`not an Agent ID: ${agentId}`);
  return { agentId, configurationId };
}

/** `POST …/deploy`; returns the revision ID. */
export async function deploy(
  api: TenantApi,
  id: NamespaceId,
  agentId: string,
): Promise<RevisionId> {
  const res = await call(api, "POST", `/namespaces/${id}/agents/${agentId}/deploy`);
  expect(res.status, res.text).toBe(202);
  const revisionId = (res.body.data as { id: string }).id;
  if (!isRevisionId(revisionId)) throw new Error(`not a revision ID: ${revisionId}`);
  return revisionId;
}

/** The cluster administrator's status writes (the controllers the test cluster lacks). */
const adminStatus = statusWriter(loadKubeConfig(inject("env").kubeconfigs.admin));

/**
 * What the Deployment controller and kubelet would report once the pods run: the test cluster
 * has neither, so the test writes the status subresource itself (as envtest projects do).
 */
export async function markAvailable(ns: string, name: string): Promise<void> {
  const d = await admin.get("Deployment", { name, namespace: ns });
  await adminStatus.patchStatus(
    "Deployment",
    { name, namespace: ns },
    {
      status: {
        observedGeneration: d.metadata.generation ?? 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [
          {
            type: "Available",
            status: "True",
            reason: "MinimumReplicasAvailable",
            lastTransitionTime: new Date().toISOString(),
            lastUpdateTime: new Date().toISOString(),
          },
        ],
      },
    },
  );
}

/**
 * What the PVC protection controller does once no pod uses a deleted claim (the test cluster
 * does not run it): drop the `kubernetes.io/pvc-protection` finalizer of a terminating claim.
 */
export async function releaseTerminatingClaims(ns: string, agentId: string): Promise<void> {
  const names = agentObjectNames(agentId);
  for (const name of [names.gatewayState, names.workspace]) {
    const pvc = await admin.find("PersistentVolumeClaim", { name, namespace: ns });
    if (pvc?.metadata.deletionTimestamp !== undefined) {
      await admin.patch(
        "PersistentVolumeClaim",
        { name, namespace: ns },
        { metadata: { finalizers: null } },
        { type: "merge" },
      );
    }
  }
}

/** Deploys until active: pass (pending), gateway marked available, pass (active). */
export async function rollOut(api: TenantApi, ns: string, agentId: AgentId): Promise<void> {
  const first = await agentPass(api, agentId);
  expect(first).toMatchObject({
    result: "applied",
    move: "defer",
    code: "WORKLOAD_ROLLOUT_PENDING",
  });
  await markAvailable(ns, agentObjectNames(agentId).gateway);
  expect(await agentPass(api, agentId)).toMatchObject({ result: "applied", move: "complete" });
}

interface Listed {
  items: { metadata: { name: string; namespace: string; uid: string; labels?: StringMap } }[];
}

const PATHS = {
  Deployment: "/apis/apps/v1/deployments",
  Service: "/api/v1/services",
  ServiceAccount: "/api/v1/serviceaccounts",
  ConfigMap: "/api/v1/configmaps",
  Secret: "/api/v1/secrets",
  NetworkPolicy: "/apis/networking.k8s.io/v1/networkpolicies",
  PersistentVolumeClaim: "/api/v1/persistentvolumeclaims",
} as const;

/** Every object labelled for the Agent, cluster-wide, as `Kind/namespace/name`. */
export async function agentObjectsEverywhere(agentId: string): Promise<string[]> {
  const clients = kubeAs("admin");
  const out: string[] = [];
  for (const [kind, path] of Object.entries(PATHS)) {
    const listed = (await rawGet(
      clients,
      `${path}?labelSelector=${encodeURIComponent(`${LABELS.agent}=${agentId}`)}`,
    )) as Listed;
    for (const item of listed.items)
      out.push(`${kind}/${item.metadata.namespace}/${item.metadata.name}`);
  }
  return out.sort();
}

/** Runs teardown passes (releasing terminating claims between them) until the work completes. */
export async function tearDown(api: TenantApi, ns: string, agentId: AgentId): Promise<void> {
  for (let round = 0; round < 5; round += 1) {
    const summary = await agentPass(api, agentId);
    if (summary.result === "applied" && summary.move === "complete") return;
    expect(summary).toMatchObject({ move: "defer", code: "WORKLOAD_DELETION_PENDING" });
    await releaseTerminatingClaims(ns, agentId);
  }
  throw new Error("teardown did not complete");
}
