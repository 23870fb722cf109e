import type { NamespaceEvent } from "../events.js";
import type { ObjectWriter } from "./client/index.js";

/**
 * Records a Kubernetes Event on a tenant namespace, so `kubectl describe namespace` and
 * `kubectl get events` show why OCC is waiting or stopped. Best effort by contract: it never
 * throws and is never required for success (the worker may not even be allowed to create
 * Events there yet — that is often exactly what the Event would say).
 */
export async function recordNamespaceEvent(
  client: ObjectWriter,
  namespace: string,
  event: NamespaceEvent,
): Promise<boolean> {
  const now = new Date().toISOString();
  try {
    await client.create("Event", {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: "occ-placement-", namespace },
      // The API server requires an Event to live in its involved object's namespace; for the
      // namespace itself that is the namespace (so `kubectl get events -n <ns>` shows it).
      involvedObject: { apiVersion: "v1", kind: "Namespace", name: namespace, namespace },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: "occ-worker" },
      reportingComponent: "openclaw.dev/occ-worker",
      reportingInstance: "occ-worker",
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
    return true;
  } catch {
    return false;
  }
}
