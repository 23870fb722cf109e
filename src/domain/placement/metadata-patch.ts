/**
 * The guarded metadata write OCC sends to a namespace (placement.md §4.1 step 2, §4.2 step 7).
 *
 * A patch carries only marker keys — never the manager label of an external namespace, never
 * unrelated metadata — and the observed `resourceVersion`, so a concurrent change makes the
 * write fail (409) instead of overwriting it. `null` means there is nothing to write, which is
 * what keeps a pass over an unchanged namespace free of writes.
 */
import type { K8sNamespace, StringMap } from "./k8s-objects.js";
import type { Markers } from "./markers.js";
import { hasMarkers } from "./markers.js";
import { err, ok, type Result } from "../input/result.js";
import { violation, type Violation } from "./violations.js";

/** Labels and annotations to set, guarded by `resourceVersion`. */
export interface MetadataPatch {
  readonly resourceVersion: string;
  readonly labels: StringMap;
  readonly annotations: StringMap;
}

/**
 * The patch that makes `namespace` carry `markers`, or `null` when every marker already holds
 * its value. When a write is needed the patch sets the complete marker set (values that are
 * already right are rewritten unchanged), so one request leaves the binding whole. Without an
 * observed `resourceVersion` the write cannot be guarded: a retryable violation asks for a
 * fresh read.
 */
export function metadataPatchFor(
  namespace: K8sNamespace,
  markers: Markers,
): Result<MetadataPatch | null, Violation> {
  if (hasMarkers(namespace.metadata, markers)) return ok(null);
  const resourceVersion = namespace.metadata?.resourceVersion;
  if (resourceVersion === undefined || resourceVersion === "") {
    return err(
      violation(
        "incomplete-read",
        "KUBERNETES_CONFLICT",
        "the namespace was read without metadata.resourceVersion, so a guarded write is impossible; it will be read again",
      ),
    );
  }
  return ok({ resourceVersion, labels: markers.labels, annotations: markers.annotations });
}

/** The observed UID, or a retryable violation when the read did not include one. */
export function observedUid(namespace: K8sNamespace): Result<string, Violation> {
  const uid = namespace.metadata?.uid;
  return uid === undefined || uid === ""
    ? err(
        violation(
          "incomplete-read",
          "KUBERNETES_CONFLICT",
          "the namespace was read without metadata.uid; it will be read again",
        ),
      )
    : ok(uid);
}
