/**
 * Revision work (drivers.md §4): converge the Agent's objects to one revision, wait until the
 * gateway reports it available, then retire the previous revisions' own objects.
 */
import { randomBytes } from "node:crypto";
import {
  carriesProviderCredential,
  claimDecision,
  desiredClaims,
  desiredWorkloadObjects,
  gatewayServes,
  GATEWAY_TOKEN_KEY,
  workloadNames,
  workloadNotDone,
  workloadObjectAction,
  renderClaim,
} from "../../../domain/index.js";
import type {
  DeployRevisionResult,
  DeploymentState,
  DesiredWorkloadObject,
  PersistentVolumeClaim,
  WorkloadNotDone,
} from "../../../domain/index.js";
import type { RevisionPassInput } from "../../workloads.js";
import { isKubeError, type ObjectClient } from "../client/index.js";
import { convergeObject } from "../converge.js";
import type { BoundNamespace } from "../../tenant-objects.js";
import { isNotDone, kubeFailure, resolveForWorkload } from "./context.js";
import type { KubernetesWorkloadDriverOptions } from "./context.js";
import { readCredential } from "./credential.js";
import { removeEgressPolicy, retireOthers } from "./retire.js";

/**
 * One revision pass. Claims first (created once, then only verified — never patched), then the
 * objects in write order, each read, decided and written only on change; the gateway
 * Deployment is updated in place. Pending until the gateway serves the revision; then every
 * object scoped to another revision of this Agent is deleted by UID, and the result is active.
 */
export async function deployRevision(
  opts: KubernetesWorkloadDriverOptions,
  input: RevisionPassInput,
): Promise<DeployRevisionResult> {
  const { client } = opts;
  const bound = await resolveForWorkload(opts, input.tenant);
  if ("missing" in bound) {
    return workloadNotDone(
      "KUBERNETES_NAMESPACE_PENDING",
      "the tenant's Kubernetes namespace does not exist yet",
    );
  }
  if (isNotDone(bound)) return bound;
  const ns = bound.name;
  const tenantId = input.tenant.tenantId;

  const claims = await ensureClaims(opts, bound, input);
  if (claims !== null) return claims;
  const objects = desiredWorkloadObjects({
    tenantId,
    namespace: ns,
    agentId: input.agentId,
    executionMode: input.executionMode,
    revisionId: input.revisionId,
    configurationDocument: input.configurationDocument,
    workloads: opts.workloads,
    egressAuthority: opts.egressAuthority,
    dns: opts.settings.dns,
    gatewayPort: opts.settings.gatewayPort,
    credentialKind: input.credential?.kind ?? null,
  });
  const credential = carriesProviderCredential({
    credentialKind: input.credential?.kind ?? null,
    egressAuthority: opts.egressAuthority,
  })
    ? await readCredential(client, bound, tenantId, input.credential)
    : {};
  if (isNotDone(credential)) return credential;
  for (const desired of objects) {
    const stopped = await converge(client, desired, tenantId, input.agentId, credential);
    if (stopped !== null) return stopped;
  }
  if (opts.egressAuthority === null) {
    const removed = await removeEgressPolicy(client, ns, tenantId, input.agentId);
    if (removed !== null) return removed;
  }

  const gatewayName = workloadNames(input.agentId, input.revisionId).gateway;
  let gateway: DeploymentState | undefined;
  try {
    gateway = await client.find("Deployment", {
      name: gatewayName,
      namespace: ns,
    });
  } catch (err) {
    return kubeFailure(err, "read the gateway Deployment", ns);
  }
  if (!gatewayServes(gateway ?? null, input.revisionId)) {
    return workloadNotDone(
      "WORKLOAD_ROLLOUT_PENDING",
      `the gateway Deployment ${gatewayName} does not report the revision available yet`,
    );
  }
  const retired = await retireOthers(client, ns, tenantId, input.agentId, input.revisionId);
  return retired ?? { outcome: "active", namespaceName: ns };
}

async function ensureClaims(
  opts: KubernetesWorkloadDriverOptions,
  bound: BoundNamespace,
  input: RevisionPassInput,
): Promise<WorkloadNotDone | null> {
  const specs = desiredClaims({
    tenantId: input.tenant.tenantId,
    agentId: input.agentId,
    executionMode: input.executionMode,
    workloads: opts.workloads,
  });
  for (const spec of specs) {
    const ref = { name: spec.name, namespace: bound.name };
    const find = async () => (await opts.client.find("PersistentVolumeClaim", ref)) ?? null;
    // A claim that lost a create race and then vanished is a conflict, not a second create.
    let raced = false;
    try {
      const result = await convergeObject<PersistentVolumeClaim, WorkloadNotDone>({
        observe: find,
        decide: (observed) =>
          raced && observed === null
            ? {
                action: "stop",
                result: workloadNotDone(
                  "KUBERNETES_CONFLICT",
                  `${spec.name} vanished while it was created`,
                ),
              }
            : claimDecision(observed, spec),
        create: () => opts.client.create("PersistentVolumeClaim", renderClaim(spec, bound.name)),
        // claimDecision never answers `update`: a claim that differs is refused, not patched.
        update: () => Promise.reject(new Error("a claim is never updated")),
        lostRace: {
          reread: () => {
            raced = true;
            return find();
          },
        },
      });
      if (result !== "written" && result !== "unchanged") return result;
    } catch (err) {
      return kubeFailure(err, `ensure the claim ${spec.name}`, bound.name);
    }
  }
  return null;
}

async function converge(
  client: ObjectClient,
  desired: DesiredWorkloadObject,
  tenantId: string,
  agentId: string,
  secretData: Readonly<Record<string, string>>,
): Promise<WorkloadNotDone | null> {
  const { object } = desired;
  const ref = { name: object.metadata.name, namespace: object.metadata.namespace };
  const what = `${object.kind} ${object.metadata.name}`;
  try {
    const result = await convergeObject({
      observe: async () => (await client.find(object.kind, ref)) ?? null,
      decide: (observed) => workloadObjectAction(observed, desired, tenantId, agentId),
      create: () => client.create(object.kind, withGeneratedData(object, secretData)),
      update: (resourceVersion) =>
        client.apply(
          object.kind,
          { ...object, metadata: { ...object.metadata, resourceVersion } },
          { force: true },
        ),
    });
    return result === "written" || result === "unchanged" ? null : result;
  } catch (err) {
    if (isKubeError(err, "conflict")) {
      return workloadNotDone("KUBERNETES_CONFLICT", `${what} changed concurrently; retrying`);
    }
    return kubeFailure(err, `write ${what}`, object.metadata.namespace);
  }
}

/**
 * The credentials Secret gets its generated token (and the provider credential, when it
 * carries one) when it is created, never afterwards: a revision's credentials are as immutable
 * as the revision.
 */
function withGeneratedData<T extends DesiredWorkloadObject["object"]>(
  object: T,
  secretData: Readonly<Record<string, string>>,
): T {
  if (object.kind !== "Secret") return object;
  const token = randomBytes(32).toString("base64url");
  return {
    ...object,
    data: { ...secretData, [GATEWAY_TOKEN_KEY]: Buffer.from(token).toString("base64") },
  };
}
