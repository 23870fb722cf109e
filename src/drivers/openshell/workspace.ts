/**
 * The tenant's OpenShell Workspace on the gateway (preprovisioned.md §4): named exactly after
 * the tenant's Kubernetes namespace, labelled with the manager label and the Namespace ID.
 * A Workspace without exactly those labels is not ours: it is never used and never deleted.
 */
import { LABELS, MARKER_VALUES, notDone, type NotDone } from "../../domain/index.js";
import type { OpenShellGateway } from "./gateway-client.js";
import { GatewayError } from "./gateway-error.js";
import type { WorkspaceMessage } from "./service.js";

/** The labels of the tenant's Workspace. */
export function workspaceLabels(tenantId: string): Readonly<Record<string, string>> {
  return { [LABELS.managedBy]: MARKER_VALUES.managedBy, [LABELS.namespace]: tenantId };
}

function ownedBy(workspace: WorkspaceMessage, tenantId: string): boolean {
  const labels = workspace.metadata?.labels ?? {};
  return Object.entries(workspaceLabels(tenantId)).every(([k, v]) => labels[k] === v);
}

/** A gateway failure as a pass outcome; anything that is not a gateway answer is rethrown. */
export function outcomeOfGatewayError(err: unknown, what: string): NotDone {
  if (!(err instanceof GatewayError)) throw err;
  switch (err.category) {
    case "unavailable":
    case "timeout":
      return notDone(
        "SANDBOX_GATEWAY_UNAVAILABLE",
        `the OpenShell gateway could not ${what} (${err.category}); retrying`,
      );
    case "already-exists":
      return notDone(
        "SANDBOX_GATEWAY_UNAVAILABLE",
        `the OpenShell Workspace appeared while it was created; retrying`,
      );
    case "rejected":
      return notDone("SANDBOX_GATEWAY_REJECTED", `the OpenShell gateway refused to ${what}`);
  }
}

const notOurs = (name: string): NotDone =>
  notDone(
    "SANDBOX_GATEWAY_REJECTED",
    `the OpenShell Workspace ${name} exists without this tenant's labels; OCC never uses or deletes it`,
  );

/** Ensures the Workspace exists, is owned and ACTIVE; `null` when it is. */
export async function ensureWorkspace(
  gateway: OpenShellGateway,
  name: string,
  tenantId: string,
): Promise<NotDone | null> {
  let workspace: WorkspaceMessage | null;
  try {
    workspace = await gateway.getWorkspace(name);
    workspace ??= await gateway.createWorkspace(name, workspaceLabels(tenantId));
  } catch (err) {
    return outcomeOfGatewayError(err, "ensure the tenant's Workspace");
  }
  if (!ownedBy(workspace, tenantId)) return notOurs(name);
  const phase = workspace.status?.phase;
  if (phase === "WORKSPACE_PHASE_ACTIVE") return null;
  return notDone(
    "SANDBOX_WORKSPACE_PENDING",
    phase === "WORKSPACE_PHASE_TERMINATING"
      ? "the tenant's OpenShell Workspace is terminating; it is recreated once it is gone"
      : "the tenant's OpenShell Workspace is not active yet",
  );
}

/**
 * Deletes the tenant's Workspace: `null` once it is gone (or was never there), pending while
 * it is terminating, failed when the Workspace of that name is not ours.
 */
export async function deleteWorkspace(
  gateway: OpenShellGateway,
  name: string,
  tenantId: string,
): Promise<NotDone | null> {
  try {
    const workspace = await gateway.getWorkspace(name);
    if (workspace === null) return null;
    if (!ownedBy(workspace, tenantId)) return notOurs(name);
    const outcome = await gateway.deleteWorkspace(name);
    if (outcome === "DELETE_OUTCOME_COMPLETED" || outcome === "DELETE_OUTCOME_ALREADY_ABSENT") {
      return null;
    }
    return notDone(
      "SANDBOX_WORKSPACE_PENDING",
      "the tenant's OpenShell Workspace is terminating; deletion continues on the next pass",
    );
  } catch (err) {
    return outcomeOfGatewayError(err, "delete the tenant's Workspace");
  }
}
