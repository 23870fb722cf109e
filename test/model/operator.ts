/**
 * What the model's commands do to the stack: requests to the API processes as the bootstrap
 * administrator, and the operator's own changes through the API server.
 */
import { randomBytes } from "node:crypto";
import { ANNOTATIONS, LABELS, LIFECYCLE } from "../../src/domain/index.js";
import { createMissing, tenantRoleBinding } from "../../src/drivers/kubernetes/rbac-objects.js";
import { untilAccess } from "../harness/rbac.js";
import type { Stack } from "../harness/stack.js";
import type { Preparation, Tenant } from "./model.js";
import { sleep } from "../harness/time.js";

export interface Answer {
  readonly status: number;
  readonly body: { data?: { id?: string }; error?: { code?: string } };
}

/**
 * One request to API process `api`. A request that could not be sent (the process is being
 * restarted) is tried on the other one; a sent request is never repeated.
 */
export async function call(
  stack: Stack,
  api: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    const url = stack.apiUrl(api + attempt);
    try {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${stack.apiKey}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      const parsed = (text === "" ? {} : JSON.parse(text)) as Answer["body"];
      // 503 is the API's "retry later" while PostgreSQL restarts: nothing was done.
      if (res.status === 503) {
        lastError = new Error(`${method} ${path}: 503 ${text}`);
        await sleep(500);
        continue;
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      if (!isConnectError(err)) throw err;
      lastError = err;
      await sleep(250);
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

function isConnectError(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } }).cause;
  return ["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET"].includes(cause?.code ?? "");
}

export const RESTRICTED: Record<string, string> = {
  [LABELS.podSecurityEnforce]: "restricted",
  [LABELS.podSecurityAudit]: "restricted",
  [LABELS.podSecurityWarn]: "restricted",
};

/** An operator-prepared namespace for adoption, correctly or with one defect. */
export async function prepareNamespace(
  stack: Stack,
  how: Preparation,
): Promise<{ name: string; labels: Record<string, string>; annotations: Record<string, string> }> {
  const name = `ext-${randomBytes(4).toString("hex")}`;
  const labels: Record<string, string> = {
    [LABELS.managedBy]: "Helm",
    team: "support",
    ...(how === "no-pod-security" ? {} : RESTRICTED),
    ...(how === "foreign-marker" ? { [LABELS.namespace]: `ns_foreign-${name}` } : {}),
  };
  const annotations: Record<string, string> = {
    "meta.helm.sh/release-name": "support",
    ...(how === "no-lifecycle" ? {} : { [ANNOTATIONS.lifecycle]: LIFECYCLE.external }),
  };
  await stack.admin.create("Namespace", { metadata: { name, labels, annotations } });
  if (how === "allow-all") await foreignPolicy(stack, name, "allow-all");
  return { name, labels, annotations };
}

/** An operator's NetworkPolicy; returns its resourceVersion. */
export async function foreignPolicy(stack: Stack, namespace: string, name: string) {
  const np = await stack.admin.create("NetworkPolicy", {
    metadata: { name, namespace, labels: { team: "support" } },
    spec: { podSelector: {}, ingress: [{}], policyTypes: ["Ingress"] },
  });
  return np.metadata.resourceVersion ?? "";
}

/** The operator grants the worker its tenant role in `namespace`, and waits until RBAC does. */
export async function grant(stack: Stack, namespace: string): Promise<string> {
  const binding = tenantRoleBinding(namespace, "worker", { kind: "User", name: "occ-worker" });
  await createMissing(stack.admin, [binding]);
  await untilAccess(stack.cluster.kubeconfigs["occ-worker"], "occ-worker", namespace, true);
  return BINDING;
}

/** The name of the worker's tenant RoleBinding (rbac-objects.ts). */
const BINDING = "openclaw-enterprise-tenant-worker";

export async function revoke(stack: Stack, namespace: string): Promise<void> {
  const name = BINDING;
  const rb = await stack.admin.find("RoleBinding", {
    name,
    namespace,
  });
  if (rb !== undefined)
    await stack.admin.delete("RoleBinding", { name, namespace }, { uid: rb.metadata.uid ?? "" });
  await untilAccess(stack.cluster.kubeconfigs["occ-worker"], "occ-worker", namespace, false);
}

/** The tenant's row, or undefined. */
export async function row(stack: Stack, id: string) {
  const rows = await stack.query<{
    status: string;
    status_code: string | null;
    deleted_at: Date | null;
    kubernetes_namespace: string | null;
  }>("SELECT status, status_code, deleted_at, kubernetes_namespace FROM namespaces WHERE id = $1", [
    id,
  ]);
  return rows[0];
}

/** Waits (bounded) until the tenant's first pass landed: any status but provisioning, or pending. */
export async function untilSettled(stack: Stack, t: Tenant, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await row(stack, t.id).catch(() => undefined);
    if (r !== undefined && (r.status !== "provisioning" || r.status_code !== null)) return;
    await sleep(250);
  }
}

/** Waits (bounded) until the tenant is ready; false when it did not get there. */
export async function untilReady(stack: Stack, t: Tenant, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await row(stack, t.id).catch(() => undefined);
    if (r?.status === "ready") return true;
    if (r !== undefined && r.status !== "provisioning") return false;
    await sleep(250);
  }
  return false;
}
