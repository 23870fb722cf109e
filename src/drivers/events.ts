/**
 * The Event port (the worker's `record.EventRecorder`): one Kubernetes Event on a tenant
 * namespace for each change of a Namespace's status or reason, so `kubectl describe namespace`
 * shows why OCC waits or stopped. The Kubernetes implementation is
 * `kubernetes/events.ts`; the runtime factory of `src/main` hands it to the worker.
 */

/** One Event about a tenant namespace. */
export interface NamespaceEvent {
  readonly type: "Normal" | "Warning";
  /** A stable code, e.g. `KUBERNETES_PERMISSION_PENDING`. */
  readonly reason: string;
  /** The sanitized reason shown on the platform Namespace. */
  readonly message: string;
}

/**
 * Records `event` on `namespace`. Best effort by contract: never throws and is never required
 * for success; resolves `false` when the API server refused it (the worker may not even be
 * allowed to create Events there yet — often exactly what the Event would say).
 */
export type EventRecorder = (namespace: string, event: NamespaceEvent) => Promise<boolean>;
