/**
 * `occ namespaces orphans` and `occ namespaces import` (docs/operations.md "Backup and
 * restore"): after a database restore, Kubernetes namespaces whose tenant markers name a
 * platform Namespace the database does not know are orphans — reported, never touched by OCC.
 *
 * `import` re-attaches an external orphan to a new platform Namespace, only through the
 * external-adoption checks: it confirms with the API that the namespace is an orphan of exactly
 * `--stale-id`, reads it with the operator's kubeconfig, runs the preflight (the worker's own
 * checks) on the namespace as it will be once released — the stale tenant markers removed, and
 * the stale tenant's own NetworkPolicies, ResourceQuota and LimitRange gone (foreign to the
 * checks, and named like the new tenant's) — and
 * only if everything passes releases exactly that (guarded by resourceVersion and UID) and asks
 * the API to create the Namespace with `existingNamespace` (audited as `namespaces.import`).
 * Anything else is left for the operator: nothing is changed when a check fails.
 */
import type { Command } from "commander";
import { loadInstallationConfig } from "../config/installation-config.js";
import { preflightExternal } from "../domain/placement/external-preflight.js";
import type { HasMetadata } from "../domain/placement/k8s-objects.js";
import { isOwnedBy } from "../domain/placement/markers.js";
import {
  orphanRelease,
  releasedNamespace,
  staleOwnedObjects,
  type OrphanRelease,
} from "../domain/placement/orphans.js";
import { NamespaceSchema, type NamespaceView } from "../contract/namespaces.js";
import {
  OrphanListSchema,
  type ImportNamespaceBody,
  type OrphanNamespaceView,
} from "../contract/orphans.js";
import { createObjectClient, loadKubeConfig } from "../drivers/kubernetes/client/index.js";
import type { ObjectClient } from "../drivers/kubernetes/client/index.js";
import { apiClientFrom, requestAs, withApiClientOptions } from "./api-client.js";
import type { ApiClient } from "./api-client.js";
import { outputOption, print, render, say, type Column, type OutputFormat } from "./output.js";
import {
  failureReport,
  preflightContext,
  readCandidate,
  requiredGrants,
  type PreflightFlags,
} from "./preflight-command.js";

const COLUMNS: readonly Column<OrphanNamespaceView>[] = [
  { header: "kubernetes namespace", cell: (o) => o.kubernetesNamespace },
  { header: "placement", cell: (o) => o.placement },
  { header: "unknown namespace id", cell: (o) => o.namespaceIds.join(",") },
  { header: "uid", cell: (o) => o.uid ?? "-" },
  { header: "terminating", cell: (o) => (o.terminating ? "yes" : "no") },
];

interface ClientFlags {
  server?: string;
  apiKeyFile?: string;
  output: OutputFormat;
}

interface ImportFlags extends ClientFlags, PreflightFlags {
  name: string;
  staleId: string;
  wait?: boolean;
  timeout: string;
}

/** Waits for a Namespace to become ready (shared with `occ namespaces create --wait`). */
export type UntilReady = (
  api: ApiClient,
  id: string,
  timeout: string,
) => Promise<NamespaceView | null>;

async function orphanOf(api: ApiClient, name: string, staleId: string): Promise<void> {
  const { items } = await requestAs(api, OrphanListSchema, "GET", "/namespaces/orphans");
  const orphan = items.find((o) => o.kubernetesNamespace === name);
  if (orphan === undefined) {
    throw new Error(
      `${name} is not reported as an orphan (occ namespaces orphans); import only re-attaches a namespace whose markers name an unknown Namespace ID`,
    );
  }
  if (orphan.namespaceIds.length !== 1 || orphan.namespaceIds[0] !== staleId) {
    throw new Error(
      `the markers of ${name} name ${orphan.namespaceIds.join(", ")}, not exactly --stale-id ${staleId}; nothing was changed`,
    );
  }
}

/** The kinds of the placement's own objects, whose fixed names a new tenant's would collide with. */
const PLACEMENT_KINDS = ["NetworkPolicy", "ResourceQuota", "LimitRange"] as const;

type StaleObject = {
  readonly kind: (typeof PLACEMENT_KINDS)[number];
  readonly object: HasMetadata;
};

/** The stale tenant's own placement objects in `name` (its exact ownership markers). */
async function staleObjectsIn(
  client: ObjectClient,
  name: string,
  staleId: string,
): Promise<StaleObject[]> {
  const found: StaleObject[] = [];
  for (const kind of PLACEMENT_KINDS) {
    const objects: HasMetadata[] = await client.list(kind, { namespace: name });
    for (const object of staleOwnedObjects(objects, staleId)) found.push({ kind, object });
  }
  return found;
}

/** Removes the stale markers (guarded by resourceVersion) and the stale tenant's objects (UID). */
async function release(
  client: ObjectClient,
  name: string,
  markers: OrphanRelease,
  stale: readonly StaleObject[],
): Promise<void> {
  const removed = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, null]));
  await client.patch(
    "Namespace",
    { name },
    {
      metadata: {
        resourceVersion: markers.resourceVersion,
        labels: removed(markers.labels),
        annotations: removed(markers.annotations),
      },
    },
    { type: "merge" },
  );
  for (const { kind, object } of stale) {
    await client.delete(
      kind,
      { namespace: name, name: object.metadata?.name ?? "" },
      {
        uid: object.metadata?.uid ?? "",
        ...(object.metadata?.resourceVersion !== undefined
          ? { resourceVersion: object.metadata.resourceVersion }
          : {}),
      },
    );
  }
}

export function registerOrphanCommands(ns: Command, untilReady: UntilReady): void {
  withApiClientOptions(
    ns
      .command("orphans")
      .description(
        "list Kubernetes namespaces whose tenant markers name a Namespace ID the database does not know (after a restore); OCC never touches them",
      ),
  )
    .addOption(outputOption())
    .action(async (flags: ClientFlags) => {
      const api = await apiClientFrom(flags);
      const { items } = await requestAs(api, OrphanListSchema, "GET", "/namespaces/orphans");
      print(render(flags.output, items, COLUMNS));
    });

  withApiClientOptions(
    ns
      .command("import <k8s-namespace>")
      .description(
        "re-attach an external orphan to a new Namespace: release its stale markers, then adopt it through the external-adoption checks (administrators; audited)",
      ),
  )
    .requiredOption("--name <name>", "the new Namespace's name")
    .requiredOption("--stale-id <id>", "the unknown Namespace ID its markers name (from orphans)")
    .option("--kubeconfig <file>", "kubeconfig to release with (default: config, then $KUBECONFIG)")
    .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)")
    .option("--worker <subject>", "the worker's identity, as for preflight")
    .option("--api <subject>", "the API's identity, as for preflight")
    .option("--wait", "wait until the Namespace is ready, showing progress")
    .option("--timeout <duration>", "how long --wait waits", "10m")
    .addOption(outputOption())
    .action(async (name: string, flags: ImportFlags) => {
      const api = await apiClientFrom(flags);
      await orphanOf(api, name, flags.staleId);
      const config = await loadInstallationConfig(flags.config ?? process.env.OCC_CONFIG_PATH);
      const client = createObjectClient(
        loadKubeConfig(flags.kubeconfig ?? config.kubernetes.kubeconfig),
      );
      let body: ImportNamespaceBody;
      try {
        const candidate = await readCandidate(client, name, undefined);
        if (candidate.namespace === null) throw new Error(`namespace ${name} does not exist`);
        const markers = orphanRelease(candidate.namespace, flags.staleId);
        if (!markers.ok) throw new Error(`${markers.reason}; nothing was changed`);
        const stale = await staleObjectsIn(client, name, flags.staleId);
        const failures = preflightExternal(
          {
            ...candidate,
            namespace: releasedNamespace(candidate.namespace, markers.release),
            policies: candidate.policies.filter((p) => !isOwnedBy(p.metadata, flags.staleId)),
          },
          preflightContext(config, requiredGrants(name, config, flags)),
        );
        if (failures.length > 0) {
          process.stdout.write(`${failureReport(name, failures)}nothing was changed\n`);
          process.exitCode = 1;
          return;
        }
        await release(client, name, markers.release, stale);
        say(
          `released ${name} from ${flags.staleId}: ${[...markers.release.labels, ...markers.release.annotations].join(", ")}; ${stale.length} object(s) of the stale tenant deleted (${stale.map((o) => o.kind).join(", ")})`,
        );
        body = {
          name: flags.name,
          existingNamespace: name,
          staleNamespaceId: flags.staleId,
          released: {
            labels: [...markers.release.labels],
            annotations: [...markers.release.annotations],
            ownedObjects: stale.length,
          },
        };
      } finally {
        client.close();
      }
      let n = await requestAs(api, NamespaceSchema, "POST", "/namespaces/imports", { body });
      if (flags.wait === true) n = (await untilReady(api, n.id, flags.timeout)) ?? n;
      print(
        render(flags.output, n, [
          { header: "id", cell: (v) => v.id },
          { header: "name", cell: (v) => v.name },
          { header: "status", cell: (v) => v.status },
          { header: "kubernetes namespace", cell: (v) => v.placement.kubernetesNamespace ?? "-" },
        ]),
      );
    });
}
