/**
 * The port the orphan report reads through (domain/placement/orphans.ts): every Kubernetes
 * namespace labelled `openclaw.dev/namespace`, whatever the value. In the worker the list is
 * served by its namespace watch cache (the same selector), so a scan costs no request; the
 * API lists with its own `occ-api` identity (`get`/`list` namespaces). The preprovisioned
 * profile may not list namespaces and has no reader.
 */
import { LABELS, type K8sNamespace } from "../domain/index.js";
import type { ObjectReader } from "./kubernetes/client/index.js";

export interface MarkedNamespaces {
  /** Every namespace carrying the tenant label, read now. */
  list(): Promise<K8sNamespace[]>;
}

/** The reader over `client`. */
export function markedNamespacesOf(client: ObjectReader): MarkedNamespaces {
  return { list: () => client.list("Namespace", { labelSelector: LABELS.namespace }) };
}
