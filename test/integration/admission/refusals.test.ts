import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  LABELS,
  currentManagedName,
  managedNamespaceMarkers,
  newNamespaceId,
  tenantOwnershipMarkers,
} from "../../../src/domain/index.js";
import { ADMISSION_MESSAGES } from "../../../src/drivers/kubernetes/admission-policies.js";
import {
  createObjectClient,
  loadKubeConfig,
  type Kind,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  NAMESPACE_CLUSTER_ROLES,
  tenantRoleBinding,
} from "../../../src/drivers/kubernetes/rbac-objects.js";
import { kubeFailure, uniqueName } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, prepareExternal } from "../compute/fixtures.js";

/**
 * Issue 17: the chart's admission policies (installed for the whole run by the harness, see
 * test/harness/global-setup.ts) make the API server itself refuse what OCC must never do. Each
 * forbidden write is sent directly as the worker or the API — holding the chart's RBAC, so RBAC
 * alone would let it through — and must come back 403 with the policy's message, the object
 * unchanged when read back as the administrator.
 */
let worker: ObjectClient;
let api: ObjectClient;

beforeAll(async () => {
  await grantChartClusterRoles();
  const env = inject("env");
  worker = createObjectClient(loadKubeConfig(env.kubeconfigs["occ-worker"]));
  api = createObjectClient(loadKubeConfig(env.kubeconfigs["occ-api"]));
});

afterAll(() => {
  worker.close();
  api.close();
});

async function expectPolicyRefusal(write: Promise<unknown>, message: string): Promise<void> {
  const answer = await kubeFailure(write);
  expect(answer.status).toBe(403);
  expect(answer.message).toContain("ValidatingAdmissionPolicy");
  expect(answer.message).toContain(message);
}

/** A namespace as the administrator reads it, reduced to what a forbidden write could change. */
async function snapshot(kind: Kind, name: string, namespace?: string) {
  const o = await admin.get(kind, {
    name,
    ...(namespace === undefined ? {} : { namespace }),
  });
  return {
    uid: o.metadata?.uid,
    resourceVersion: o.metadata?.resourceVersion,
    deletionTimestamp: o.metadata?.deletionTimestamp,
    labels: o.metadata?.labels,
  };
}

/**
 * `write` is refused by a policy with `message`, and the object it targets reads back unchanged
 * as the administrator; `write` gets the object's UID (for a delete's precondition).
 */
async function expectRefusedUnchanged(
  target: { kind: Kind; name: string; namespace?: string },
  message: string,
  write: (uid: string) => Promise<unknown>,
): Promise<void> {
  const before = await snapshot(target.kind, target.name, target.namespace);
  await expectPolicyRefusal(write(before.uid ?? ""), message);
  expect(await snapshot(target.kind, target.name, target.namespace)).toEqual(before);
}

/** A managed namespace as the worker creates it, with both tenant roles bound by the operator. */
async function managedNamespace(): Promise<{ name: string; tenant: string }> {
  const tenant = newNamespaceId();
  const name = currentManagedName(tenant);
  const markers = managedNamespaceMarkers(tenant, null);
  await admin.create("Namespace", { metadata: { name, ...markers } });
  await bindTenantRole(name, "occ-worker");
  await bindTenantRole(name, "occ-api");
  return { name, tenant };
}

/** An external namespace bound to a tenant, with both tenant roles bound by the operator. */
async function boundExternal(): Promise<{ name: string; tenant: string }> {
  const tenant = newNamespaceId();
  const prepared = await prepareExternal({
    labels: { [LABELS.namespace]: tenant, [LABELS.gatewayNamespace]: tenant },
    annotations: { "openclaw.dev/namespace-id": tenant },
  });
  const name = prepared.metadata?.name ?? "";
  await bindTenantRole(name, "occ-worker");
  await bindTenantRole(name, "occ-api");
  return { name, tenant };
}

describe("the chart's admission policies refuse OCC's identities what OCC must never do", () => {
  it("deleting kube-system is refused, and kube-system is unchanged", async () => {
    const before = await snapshot("Namespace", "kube-system");
    const answer = await kubeFailure(
      worker.delete("Namespace", { name: "kube-system" }, { uid: before.uid ?? "" }),
    );
    // The API server's NamespaceLifecycle plugin refuses deleting kube-system for everybody
    // before any ValidatingAdmissionPolicy runs; the policy's own refusal of an unmanaged
    // namespace is shown with kube-node-lease and an operator's namespace below.
    expect(answer.status).toBe(403);
    expect(await snapshot("Namespace", "kube-system")).toEqual(before);
  });

  it("deleting a system namespace the lifecycle plugin allows (kube-node-lease) is refused by the policy", async () => {
    await expectRefusedUnchanged(
      { kind: "Namespace", name: "kube-node-lease" },
      ADMISSION_MESSAGES.deleteNamespace,
      (uid) => worker.delete("Namespace", { name: "kube-node-lease" }, { uid }),
    );
  });

  it("deleting an external namespace is refused, even one carrying the manager label and the tenant markers", async () => {
    const { name } = await boundExternal();
    await admin.patch(
      "Namespace",
      { name },
      { metadata: { labels: { [LABELS.managedBy]: "openclaw-enterprise" } } },
      { type: "merge" },
    );
    await expectRefusedUnchanged(
      { kind: "Namespace", name },
      ADMISSION_MESSAGES.deleteNamespace,
      (uid) => worker.delete("Namespace", { name }, { uid }),
    );
  });

  it("patching an operator's label on an external namespace is refused", async () => {
    const { name } = await boundExternal();
    await expectRefusedUnchanged({ kind: "Namespace", name }, ADMISSION_MESSAGES.foreignKeys, () =>
      worker.patch(
        "Namespace",
        { name },
        { metadata: { labels: { team: "someone-else" } } },
        { type: "merge" },
      ),
    );
  });

  it("setting the manager label on a foreign namespace is refused", async () => {
    const name = uniqueName("foreign");
    await admin.create("Namespace", { metadata: { name, labels: { team: "payments" } } });
    await expectRefusedUnchanged({ kind: "Namespace", name }, ADMISSION_MESSAGES.foreignKeys, () =>
      worker.patch(
        "Namespace",
        { name },
        { metadata: { labels: { [LABELS.managedBy]: "openclaw-enterprise" } } },
        { type: "merge" },
      ),
    );
  });

  it("binding a namespace whose lifecycle annotation is not `external` is refused", async () => {
    const name = uniqueName("foreign");
    await admin.create("Namespace", { metadata: { name } });
    const tenant = newNamespaceId();
    await expectRefusedUnchanged({ kind: "Namespace", name }, ADMISSION_MESSAGES.bindExternal, () =>
      worker.patch(
        "Namespace",
        { name },
        {
          metadata: {
            labels: { [LABELS.namespace]: tenant },
            annotations: { "openclaw.dev/namespace-id": tenant },
          },
        },
        { type: "merge" },
      ),
    );
  });

  it("creating a namespace that is not a managed name is refused, and nothing is created", async () => {
    const name = uniqueName("not-managed");
    await expectPolicyRefusal(
      worker.create("Namespace", { metadata: { name } }),
      ADMISSION_MESSAGES.createName,
    );
    expect(await admin.find("Namespace", { name })).toBeUndefined();
  });

  it("deleting a NetworkPolicy without the markers is refused (worker), and it stays", async () => {
    const { name: namespace } = await managedNamespace();
    await admin.create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "operator-allow", namespace },
      spec: { podSelector: {}, policyTypes: ["Ingress"] },
    });
    await expectRefusedUnchanged(
      { kind: "NetworkPolicy", name: "operator-allow", namespace },
      ADMISSION_MESSAGES.ownedOld,
      (uid) => worker.delete("NetworkPolicy", { name: "operator-allow", namespace }, { uid }),
    );
  });

  it("deleting or changing a ConfigMap without the markers is refused (API), and it stays", async () => {
    const { name: namespace } = await boundExternal();
    await admin.create("ConfigMap", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "operator-settings", namespace },
      data: { mode: "strict" },
    });
    const settings = { kind: "ConfigMap", name: "operator-settings", namespace } as const;
    await expectRefusedUnchanged(settings, ADMISSION_MESSAGES.ownedOld, (uid) =>
      api.delete("ConfigMap", { name: "operator-settings", namespace }, { uid }),
    );
    await expectRefusedUnchanged(settings, ADMISSION_MESSAGES.ownedOld, () =>
      api.patch(
        "ConfigMap",
        { name: "operator-settings", namespace },
        { data: { mode: "open" } },
        { type: "merge" },
      ),
    );
  });

  it("creating a ConfigMap without the markers, or with another tenant's, is refused", async () => {
    const { name: namespace } = await boundExternal();
    const map = (name: string, metadata: object) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace, ...metadata },
    });
    await expectPolicyRefusal(
      api.create("ConfigMap", map("plain", {})),
      ADMISSION_MESSAGES.ownedNew,
    );
    await expectPolicyRefusal(
      api.create("ConfigMap", map("other-tenant", tenantOwnershipMarkers(newNamespaceId()))),
      ADMISSION_MESSAGES.ownedTenant,
    );
    expect(await admin.find("ConfigMap", { name: "plain", namespace })).toBeUndefined();
    expect(await admin.find("ConfigMap", { name: "other-tenant", namespace })).toBeUndefined();
  });

  it.each([
    {
      case: "creating a tenant RoleBinding in a namespace OCC does not manage (external) is refused",
      place: boundExternal,
      name: "openclaw-enterprise-tenant-extra",
      subject: "occ-worker",
      roleRef: {},
      message: ADMISSION_MESSAGES.bindNamespace,
    },
    {
      case: "binding a role other than the tenant roles is refused, even one whose rules the worker holds",
      place: managedNamespace,
      name: "other-role",
      subject: "occ-worker",
      roleRef: {
        roleRef: {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "ClusterRole",
          name: NAMESPACE_CLUSTER_ROLES.worker,
        },
      },
      message: ADMISSION_MESSAGES.bindRole,
    },
    {
      case: "binding a tenant role to an identity other than the worker's and the API's is refused",
      place: managedNamespace,
      name: "for-nobody",
      subject: "nobody",
      roleRef: {},
      message: ADMISSION_MESSAGES.bindSubjects,
    },
  ])("$case", async ({ place, name, subject, roleRef, message }) => {
    const { name: namespace, tenant } = await place();
    const binding = tenantRoleBinding(namespace, "worker", { kind: "User", name: subject });
    await expectPolicyRefusal(
      worker.create("RoleBinding", {
        ...binding,
        metadata: { name, namespace, ...tenantOwnershipMarkers(tenant) },
        ...roleRef,
      }),
      message,
    );
    expect(await admin.find("RoleBinding", { name, namespace })).toBeUndefined();
  });
});
