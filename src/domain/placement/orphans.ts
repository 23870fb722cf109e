/**
 * Orphaned tenant namespaces (quality.md R9, lifecycle.md §3): after a database restore the
 * cluster may hold namespaces whose tenant markers name a platform Namespace the database no
 * longer knows. Such a namespace is an **orphan**: OCC cannot prove it owns it now, so it never
 * deletes, adopts or modifies it — it reports it, and only an administrator's explicit import
 * (the stale markers released, then the external-adoption checks) or an operator's release by
 * hand ends that.
 *
 * These are pure decisions over namespaces already read; the database answers which IDs it
 * knows.
 */
import type { HasMetadata, K8sNamespace, ObjectMeta } from "./k8s-objects.js";
import { isTerminating } from "./k8s-objects.js";
import {
  ANNOTATIONS,
  LIFECYCLE,
  TENANT_IDENTITY_KEYS,
  isOwnedBy,
  metadataValue,
} from "./markers.js";
import { lifecycleOf } from "./namespace-checks.js";

/** How the orphan was placed, from its lifecycle annotation (managed namespaces have none). */
export const ORPHAN_PLACEMENTS = ["managed", "external", "preprovisioned", "unknown"] as const;
export type OrphanPlacement = (typeof ORPHAN_PLACEMENTS)[number];

/** One orphaned Kubernetes namespace, as reported by `occ namespaces orphans`. */
export interface OrphanNamespace {
  readonly kubernetesNamespace: string;
  readonly uid: string | null;
  /** The platform Namespace IDs its tenant markers name that the database does not know. */
  readonly namespaceIds: string[];
  readonly placement: OrphanPlacement;
  readonly terminating: boolean;
}

/** The Event reason recorded on an orphan (best effort, once per worker process). */
export const ORPHAN_EVENT_REASON = "KUBERNETES_NAMESPACE_ORPHANED";

/** The Event message: what OCC does and does not do, and the two ways out. */
export const ORPHAN_EVENT_MESSAGE =
  "the tenant markers of this namespace name a platform Namespace the OCC database does not know (e.g. after a database restore); OCC never deletes, adopts or modifies it — re-import it with `occ namespaces import` or release it by removing the markers (docs/operations.md, Backup and restore)";

/** Every distinct platform Namespace ID the tenant identity keys of `metadata` name. */
export function markedNamespaceIds(metadata: ObjectMeta | undefined): string[] {
  const ids = new Set<string>();
  for (const { kind, key } of TENANT_IDENTITY_KEYS) {
    const value = metadataValue(metadata, kind, key);
    if (value !== undefined && value !== "") ids.add(value);
  }
  return [...ids];
}

/**
 * The orphans among `namespaces`: those whose markers name at least one ID `isKnown` denies.
 * A namespace naming only known IDs is not an orphan, whatever else is wrong with it (its
 * tenant's own pass judges that). Sorted by name, so reports are stable.
 */
export function orphansAmong(
  namespaces: readonly K8sNamespace[],
  isKnown: (id: string) => boolean,
): OrphanNamespace[] {
  const found: OrphanNamespace[] = [];
  for (const namespace of namespaces) {
    const unknown = markedNamespaceIds(namespace.metadata).filter((id) => !isKnown(id));
    if (unknown.length === 0) continue;
    found.push({
      kubernetesNamespace: namespace.metadata?.name ?? "",
      uid: namespace.metadata?.uid ?? null,
      namespaceIds: unknown,
      placement: placementOf(namespace.metadata),
      terminating: isTerminating(namespace),
    });
  }
  return found.sort((a, b) => a.kubernetesNamespace.localeCompare(b.kubernetesNamespace));
}

function placementOf(metadata: ObjectMeta | undefined): OrphanPlacement {
  const lifecycle = lifecycleOf(metadata);
  if (lifecycle === undefined) return "managed";
  if (lifecycle === LIFECYCLE.external) return "external";
  if (lifecycle === LIFECYCLE.preprovisioned) return "preprovisioned";
  return "unknown";
}

/** The stale markers an import releases: every identity key naming `staleId`. */
export interface OrphanRelease {
  readonly resourceVersion: string;
  readonly labels: readonly string[];
  readonly annotations: readonly string[];
}

/**
 * What releasing `namespace` from the stale tenant `staleId` removes, or why it must not be
 * released: it must be an external orphan (a managed one has the reserved `oce-*` name and
 * cannot be selected; a preprovisioned one is the operator's), every identity key must name
 * exactly `staleId` (a namespace that also names another tenant is not this release's), and
 * the read must carry a `resourceVersion` to guard the write.
 */
export function orphanRelease(
  namespace: K8sNamespace,
  staleId: string,
): { ok: true; release: OrphanRelease } | { ok: false; reason: string } {
  const metadata = namespace.metadata;
  const ids = markedNamespaceIds(metadata);
  if (ids.length !== 1 || ids[0] !== staleId) {
    return {
      ok: false,
      reason: `the tenant markers of ${metadata?.name ?? ""} do not name exactly ${staleId}; pass the ID \`occ namespaces orphans\` reports`,
    };
  }
  if (lifecycleOf(metadata) !== LIFECYCLE.external) {
    return {
      ok: false,
      reason: `${metadata?.name ?? ""} is not an external namespace (annotation ${ANNOTATIONS.lifecycle}=external); a managed orphan cannot be selected as existingNamespace — copy its data out and release or delete it by hand (docs/operations.md)`,
    };
  }
  const resourceVersion = metadata?.resourceVersion ?? "";
  if (resourceVersion === "") {
    return { ok: false, reason: "the namespace was read without metadata.resourceVersion" };
  }
  const present = TENANT_IDENTITY_KEYS.filter(
    ({ kind, key }) => metadataValue(metadata, kind, key) !== undefined,
  );
  return {
    ok: true,
    release: {
      resourceVersion,
      labels: present.filter((k) => k.kind === "label").map((k) => k.key),
      annotations: present.filter((k) => k.kind === "annotation").map((k) => k.key),
    },
  };
}

/** `namespace` as it will be once `release` is applied (what the preflight then judges). */
export function releasedNamespace(namespace: K8sNamespace, release: OrphanRelease): K8sNamespace {
  const without = (map: Record<string, string> | undefined, keys: readonly string[]) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => !keys.includes(k)));
  return {
    ...namespace,
    metadata: {
      ...namespace.metadata,
      labels: without(namespace.metadata?.labels, release.labels),
      annotations: without(namespace.metadata?.annotations, release.annotations),
    },
  };
}

/**
 * The objects OCC created for the stale tenant (its exact ownership markers) — e.g. its
 * NetworkPolicies (foreign to a new tenant for the adoption checks), ResourceQuota and LimitRange.
 */
export function staleOwnedObjects<T extends HasMetadata>(
  objects: readonly T[],
  staleId: string,
): T[] {
  return objects.filter((o) => isOwnedBy(o.metadata, staleId));
}
