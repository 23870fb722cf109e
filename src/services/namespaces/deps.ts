/**
 * What the Namespace services need from the process: the database, the queue configuration
 * for Namespace work, the Installation's Compute selection, the namespace the controller runs
 * in (a reserved name), and the checks that decide whether a Namespace is empty.
 */
import type { QueueConfig } from "../../queue/work-items.js";
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { Db } from "../../store/db.js";
import type { ComputeSelection } from "../compute-selection.js";
import type { NamespaceContentCheck } from "./contents.js";
import type { NamespaceWorkKind } from "../../work/namespace-work.js";

export interface NamespaceServiceDeps {
  readonly db: Db;
  readonly queue: QueueConfig<NamespaceWorkKind>;
  readonly compute: ComputeSelection;
  /** The Kubernetes namespace OCC itself runs in; refused as `existingNamespace`. */
  readonly controllerNamespace: string;
  readonly contentChecks: readonly NamespaceContentCheck[];
  /** The preprovisioned profile's bound Namespace ID, if the process runs in that profile. */
  readonly preprovisionedNamespaceId?: NamespaceId | undefined;
}
