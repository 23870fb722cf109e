/**
 * The OpenShell Sandbox Driver as a Compute namespace hook (preprovisioned.md §4).
 *
 * Normal profile: apply the declared operator workspace resources with the tenant ownership
 * markers (create when missing, update an owned one that differs, refuse one that is not
 * ours), apply the operator namespace labels on a managed namespace — on an external one OCC
 * writes only its binding keys (placement.md §4.2 step 7), so there the labels are verified
 * and each missing one fails the pass closed, naming the exact label the operator must add,
 * before anything is written — then ensure the Workspace. Cleanup deletes the
 * Workspace, then the declared resources in reverse order, each owned one with its UID as
 * precondition.
 *
 * Preprovisioned profile: apply nothing. Read the namespace labels and each declared resource
 * and compare (all fields except `metadata`/`status`, tenant markers required); any difference
 * stops the pass with the seed's sentence. The Workspace is still ensured (not a Kubernetes
 * write). Cleanup deletes the Workspace only; the operator's resources stay.
 */
import type { OpenShellSettings } from "../../config/installation-config.js";
import {
  PREPROVISIONED_MESSAGES,
  decideWrite,
  isOwnedBy,
  nonEmpty,
  notDone,
  notDoneFromViolations,
  operatorLabelViolations,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
  type FailedRequirement,
  type HasMetadata,
  type NotDone,
} from "../../domain/index.js";
import type { NamespaceHook, NamespacePassInput } from "../compute.js";
import { isKubeError, type ObjectClient } from "../kubernetes/client/index.js";
import { outcomeOfKubeError } from "../kubernetes/compute/failures.js";
import { convergeObject } from "../kubernetes/converge.js";
import { OPENSHELL_TENANT_ROLE } from "../kubernetes/rbac-rules.js";
import type { OpenShellGateway } from "./gateway-client.js";
import { workspaceResources, type WorkspaceResource } from "./manifests.js";
import { workspaceResourceMatches } from "./resource-equivalence.js";
import { deleteWorkspace, ensureWorkspace } from "./workspace.js";

export interface OpenShellHookOptions {
  readonly client: ObjectClient;
  readonly gateway: OpenShellGateway;
  readonly settings: OpenShellSettings;
  readonly profile: "normal" | "preprovisioned";
}

type Live = HasMetadata & Readonly<Record<string, unknown>>;

/**
 * Every way the namespace's operator labels and declared workspace resources differ from the
 * OpenShell configuration: a missing or changed namespace label, a missing resource, one
 * without the tenant ownership markers, or one changed outside `metadata`/`status`. Read-only;
 * Kubernetes failures propagate.
 */
export async function operatorResourceFailures(
  client: ObjectClient,
  settings: OpenShellSettings,
  namespace: string,
  tenantId: string,
  resources: readonly WorkspaceResource[] = workspaceResources(settings, namespace, tenantId),
): Promise<FailedRequirement[]> {
  const failures: FailedRequirement[] = [];
  const ns = await client.get("Namespace", { name: namespace });
  for (const [key, value] of Object.entries(settings.operatorNamespaceLabels)) {
    if (ns.metadata.labels?.[key] !== value) {
      failures.push({
        requirement: `namespace label ${key}=${value}`,
        fix: `set label ${key} to "${value}" on the namespace`,
      });
    }
  }
  for (const resource of resources) {
    const what = `${resource.kind} ${resource.name}`;
    const live = await client.find(resource.kind, { name: resource.name, namespace });
    if (live === undefined) {
      failures.push({
        requirement: `${what} exists`,
        fix: `apply ${what} from occ preprovisioned render`,
      });
    } else if (!isOwnedBy(live.metadata, tenantId)) {
      failures.push({
        requirement: `${what} carries the tenant ownership markers`,
        fix: `add the markers to ${what} (occ preprovisioned render shows them)`,
      });
    } else if (!workspaceResourceMatches(resource.object, live)) {
      failures.push({
        requirement: `${what} matches the OpenShell configuration`,
        fix: `re-apply ${what} from occ preprovisioned render`,
      });
    }
  }
  return failures;
}

export class OpenShellNamespaceHook implements NamespaceHook {
  readonly name = "openshell";
  constructor(private readonly opts: OpenShellHookOptions) {}

  async onEnsure(
    namespace: string,
    input: NamespacePassInput,
  ): Promise<EnsureNamespaceResult | null> {
    const resources = workspaceResources(this.opts.settings, namespace, input.namespaceId);
    try {
      const stopped =
        this.opts.profile === "preprovisioned"
          ? await this.compare(namespace, input.namespaceId, resources)
          : await this.apply(namespace, input, resources);
      if (stopped !== null) return stopped;
    } catch (err) {
      return outcomeOfKubeError(
        err,
        "after-verification",
        "read the OpenShell workspace resources",
        namespace,
        OPENSHELL_TENANT_ROLE,
      );
    }
    return ensureWorkspace(this.opts.gateway, namespace, input.namespaceId);
  }

  async onDelete(
    namespace: string,
    input: NamespacePassInput,
  ): Promise<DeleteNamespaceResult | null> {
    const workspace = await deleteWorkspace(this.opts.gateway, namespace, input.namespaceId);
    if (workspace !== null) return workspace;
    if (this.opts.profile === "preprovisioned") return null;
    const resources = workspaceResources(this.opts.settings, namespace, input.namespaceId);
    for (const resource of [...resources].reverse()) {
      const ref = { name: resource.name, namespace };
      try {
        const live = await this.opts.client.find(resource.kind, ref);
        const uid = live?.metadata.uid;
        if (live === undefined || uid === undefined || !isOwnedBy(live.metadata, input.namespaceId))
          continue;
        await this.opts.client.delete(resource.kind, ref, { uid });
      } catch (err) {
        if (isKubeError(err, "not-found")) continue;
        return outcomeOfKubeError(
          err,
          "after-verification",
          `delete ${resource.kind} ${resource.name}`,
          namespace,
          OPENSHELL_TENANT_ROLE,
        );
      }
    }
    return null;
  }

  /** Preprovisioned: every declared resource and namespace label present and unchanged. */
  private async compare(
    namespace: string,
    tenantId: string,
    resources: readonly WorkspaceResource[],
  ): Promise<NotDone | null> {
    const problems = await operatorResourceFailures(
      this.opts.client,
      this.opts.settings,
      namespace,
      tenantId,
      resources,
    );
    return problems.length === 0
      ? null
      : notDone(
          "KUBERNETES_OWNERSHIP_CONFLICT",
          `${PREPROVISIONED_MESSAGES.operatorResource} Failing: ${problems.map((f) => f.requirement).join("; ")}`,
        );
  }

  /**
   * Normal: converge each declared resource and, on a managed namespace, the namespace labels,
   * writing only on change. An external namespace's labels are the operator's: verified first.
   */
  private async apply(
    namespace: string,
    input: NamespacePassInput,
    resources: readonly WorkspaceResource[],
  ): Promise<NotDone | null> {
    const { client } = this.opts;
    const tenantId = input.namespaceId;
    const wanted = this.opts.settings.operatorNamespaceLabels;
    const external = input.placement.mode === "external";
    if (external) {
      const ns = await client.get("Namespace", { name: namespace });
      const missing = nonEmpty(
        operatorLabelViolations(
          namespace,
          ns.metadata,
          wanted,
          "openshell.gateway.operatorNamespaceLabels",
        ),
      );
      if (missing !== null) return notDoneFromViolations(missing);
    }
    for (const resource of resources) {
      const object = resource.object as Live;
      const result = await convergeObject({
        observe: async () =>
          (await client.find(resource.kind, { name: resource.name, namespace })) ?? null,
        // No terminating rule: a resource being deleted is compared like any other.
        decide: (live) =>
          decideWrite(live, {
            owned: (o) => isOwnedBy(o.metadata, tenantId),
            notOwned: notDone(
              "KUBERNETES_OWNERSHIP_CONFLICT",
              `${resource.kind} ${resource.name} exists without this tenant's ownership markers; OCC never overwrites it`,
            ),
            differs: (o) => !workspaceResourceMatches(resource.object, o),
          }),
        create: () => client.create(resource.kind, object),
        update: (resourceVersion) =>
          client.apply(
            resource.kind,
            { ...object, metadata: { ...object.metadata, resourceVersion } },
            { force: true },
          ),
      });
      if (result !== "written" && result !== "unchanged") return result;
    }
    if (external) return null;
    const ns = await client.get("Namespace", { name: namespace });
    if (Object.entries(wanted).some(([k, v]) => ns.metadata.labels?.[k] !== v)) {
      await client.patch(
        "Namespace",
        { name: namespace },
        { metadata: { resourceVersion: ns.metadata.resourceVersion, labels: wanted } },
        { type: "merge" },
      );
    }
    return null;
  }
}
