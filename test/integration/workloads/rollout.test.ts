import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  WORKLOAD_KEYS,
  workloadNames,
  type NamespaceId,
  type ObjectMeta,
} from "../../../src/domain/index.js";
import { admin } from "../compute/fixtures.js";
import { call, startTenantApi, type TenantApi } from "../tenant/fixtures.js";
import {
  agentObjectsEverywhere,
  agentPass,
  createAgent,
  deploy,
  markAvailable,
  readyExternal,
  readyManaged,
  rollOut,
  workerWorkloads,
} from "./fixtures.js";

let api: TenantApi;
beforeAll(async () => {
  api = await startTenantApi();
});
afterAll(async () => {
  await api.close();
});

interface Obj {
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

const uidOf = async (kind: "Deployment" | "PersistentVolumeClaim", name: string, ns: string) =>
  (await admin.get<Obj>(kind, { name, namespace: ns })).metadata?.uid;

async function revisionOf(id: NamespaceId, agentId: string, revisionId: string) {
  const res = await call(api, "GET", `/namespaces/${id}/agents/${agentId}/revisions/${revisionId}`);
  expect(res.status).toBe(200);
  return res.body.data as { status: string; number: number; configurationGeneration: number };
}

describe("revision work (dedicated, external namespace)", () => {
  it("puts every object in the selected namespace, updates the one gateway in place to revision 2, keeps both claims and retires only revision 1's own objects", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId, configurationId } = await createAgent(api, id, "dedicated");
    const rev1 = await deploy(api, id, agentId);
    expect((await revisionOf(id, agentId, rev1)).status).toBe("queued");
    await rollOut(api, ns, agentId);
    expect((await revisionOf(id, agentId, rev1)).status).toBe("active");

    const n1 = workloadNames(agentId, rev1);
    const everywhere1 = await agentObjectsEverywhere(agentId);
    expect(everywhere1.every((o) => o.split("/")[1] === ns)).toBe(true);
    expect(everywhere1).toEqual(
      [
        `ConfigMap/${ns}/${n1.config}`,
        `Deployment/${ns}/${n1.gateway}`,
        `Deployment/${ns}/${n1.harness}`,
        `PersistentVolumeClaim/${ns}/${n1.gatewayState}`,
        `PersistentVolumeClaim/${ns}/${n1.workspace}`,
        `Secret/${ns}/${n1.credentials}`,
        `Service/${ns}/${n1.gateway}`,
        `ServiceAccount/${ns}/${n1.gateway}`,
      ].sort(),
    );
    const gateway = await admin.get<Obj>("Deployment", { name: n1.gateway, namespace: ns });
    expect(gateway.metadata?.labels).toMatchObject({
      [LABELS.workloadRole]: "gateway",
      [LABELS.networkProfile]: "broad-egress-v1",
      [LABELS.agent]: agentId,
      [LABELS.namespace]: id,
      [LABELS.managedBy]: "openclaw-enterprise",
    });
    expect(gateway.metadata?.annotations?.[ANNOTATIONS.agentId]).toBe(agentId);
    expect(gateway.spec).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    const harness = await admin.get<Obj>("Deployment", { name: n1.harness, namespace: ns });
    expect(harness.metadata?.labels?.[LABELS.revision]).toBe(rev1);
    expect(harness.metadata?.annotations?.[ANNOTATIONS.revisionId]).toBe(rev1);
    const before = {
      gateway: await uidOf("Deployment", n1.gateway, ns),
      state: await uidOf("PersistentVolumeClaim", n1.gatewayState, ns),
      workspace: await uidOf("PersistentVolumeClaim", n1.workspace, ns),
    };

    // A pass over the unchanged, active Agent writes nothing.
    const { driver, client } = workerWorkloads();
    try {
      const again = await driver.deployRevision({
        tenant: {
          tenantId: id,
          placement: { mode: "external", existingNamespace: ns },
          recordedName: ns,
          recordedUid: (await admin.get<Obj>("Namespace", { name: ns })).metadata?.uid ?? null,
        },
        agentId,
        executionMode: "dedicated",
        revisionId: rev1,
        configurationDocument: JSON.stringify({ model: "m1" }),
        credential: null,
      });
      expect(again).toEqual({ outcome: "active", namespaceName: ns });
      expect(client.counter.writes()).toBe(0);
    } finally {
      client.close();
    }
    const rv = (
      await admin.get<Obj>("Deployment", {
        name: n1.gateway,
        namespace: ns,
      })
    ).metadata?.resourceVersion;

    const updated = await call(
      api,
      "PATCH",
      `/namespaces/${id}/configurations/${configurationId}`,
      {
        body: { values: { model: "m2" } },
      },
    );
    expect(updated.status).toBe(200);
    const rev2 = await deploy(api, id, agentId);
    expect((await revisionOf(id, agentId, rev2)).configurationGeneration).toBe(2);
    const pending = await agentPass(api, agentId);
    expect(pending).toMatchObject({ move: "defer", code: "WORKLOAD_ROLLOUT_PENDING" });
    // Until revision 2 is available, revision 1's objects stay.
    expect(await admin.find("Deployment", { name: n1.harness, namespace: ns })).toBeDefined();
    const switched = await admin.get<Obj>("Deployment", {
      name: n1.gateway,
      namespace: ns,
    });
    expect(switched.metadata?.resourceVersion).not.toBe(rv);
    await markAvailable(ns, n1.gateway);
    expect(await agentPass(api, agentId)).toMatchObject({ move: "complete" });

    const n2 = workloadNames(agentId, rev2);
    const after = await admin.get<Obj>("Deployment", { name: n2.gateway, namespace: ns });
    expect(after.metadata?.uid).toBe(before.gateway);
    expect(after.metadata?.annotations?.[WORKLOAD_KEYS.activeRevision]).toBe(rev2);
    expect(await uidOf("PersistentVolumeClaim", n2.gatewayState, ns)).toBe(before.state);
    expect(await uidOf("PersistentVolumeClaim", n2.workspace, ns)).toBe(before.workspace);
    expect(await agentObjectsEverywhere(agentId)).toEqual(
      [
        `ConfigMap/${ns}/${n2.config}`,
        `Deployment/${ns}/${n2.gateway}`,
        `Deployment/${ns}/${n2.harness}`,
        `PersistentVolumeClaim/${ns}/${n2.gatewayState}`,
        `PersistentVolumeClaim/${ns}/${n2.workspace}`,
        `Secret/${ns}/${n2.credentials}`,
        `Service/${ns}/${n2.gateway}`,
        `ServiceAccount/${ns}/${n2.gateway}`,
      ].sort(),
    );
    const config2 = await admin.get<Obj>("ConfigMap", {
      name: n2.config,
      namespace: ns,
    });
    expect(JSON.parse(config2.data?.["openclaw.json"] ?? "{}")).toEqual({ model: "m2" });
    expect((await revisionOf(id, agentId, rev1)).status).toBe("retired");
    expect((await revisionOf(id, agentId, rev2)).status).toBe("active");
    const agent = await call(api, "GET", `/namespaces/${id}/agents/${agentId}`);
    expect(agent.body.data).toMatchObject({ currentRevisionId: rev2, status: "active" });
    const list = await call(api, "GET", `/namespaces/${id}/agents/${agentId}/revisions`);
    expect((list.body.data as { id: string }[]).map((r) => r.id)).toEqual([rev1, rev2]);
  });
});

describe("revision work (embedded, managed namespace)", () => {
  it("puts every object in the oce-… namespace and nowhere else; no harness, no workspace claim", async () => {
    const { id, ns } = await readyManaged(api);
    expect(ns).toMatch(/^oce-[0-9a-f]{15}$/);
    const { agentId } = await createAgent(api, id, "embedded");
    const rev = await deploy(api, id, agentId);
    await rollOut(api, ns, agentId);
    const n = workloadNames(agentId, rev);
    expect(await agentObjectsEverywhere(agentId)).toEqual(
      [
        `ConfigMap/${ns}/${n.config}`,
        `Deployment/${ns}/${n.gateway}`,
        `PersistentVolumeClaim/${ns}/${n.gatewayState}`,
        `Secret/${ns}/${n.credentials}`,
        `Service/${ns}/${n.gateway}`,
        `ServiceAccount/${ns}/${n.gateway}`,
      ].sort(),
    );
  });
});

describe("Credential Proxy", () => {
  it("renders an Agent-scoped egress policy to DNS and the egress authority only, and sets HTTPS_PROXY/HTTP_PROXY", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId } = await createAgent(api, id, "dedicated");
    const rev = await deploy(api, id, agentId);
    const egressAuthority = {
      namespace: "egress-system",
      podLabels: { app: "egress" },
      port: 3128,
    };
    expect(await agentPass(api, agentId, { egressAuthority })).toMatchObject({ move: "defer" });
    const n = workloadNames(agentId, rev);
    const policy = await admin.get<Obj>("NetworkPolicy", {
      name: n.egressPolicy,
      namespace: ns,
    });
    expect(policy.spec).toMatchObject({
      podSelector: { matchLabels: { [LABELS.agent]: agentId } },
      policyTypes: ["Egress"],
      egress: [
        { to: [{ namespaceSelector: { matchLabels: { [LABELS.metadataName]: "kube-system" } } }] },
        {
          to: [
            {
              namespaceSelector: { matchLabels: { [LABELS.metadataName]: "egress-system" } },
              podSelector: { matchLabels: { app: "egress" } },
            },
          ],
          ports: [{ protocol: "TCP", port: 3128 }],
        },
      ],
    });
    for (const name of [n.gateway, n.harness]) {
      const d = await admin.get<{
        metadata?: ObjectMeta;
        spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
      }>("Deployment", { name, namespace: ns });
      const env = d.spec.template.spec.containers[0]?.env ?? [];
      const url = "http://egress-authority.egress-system.svc:3128";
      expect(env).toEqual(
        expect.arrayContaining([
          { name: "HTTPS_PROXY", value: url },
          { name: "HTTP_PROXY", value: url },
        ]),
      );
    }
  });
});

describe("ServiceAccount credentials", () => {
  it("copies the credential into the revision's credentials Secret and the gateway's env — but not with a Credential Proxy", async () => {
    const { id, ns } = await readyExternal(api);
    const value = `provider-${Date.now()}`;
    const secret = await call(api, "POST", `/namespaces/${id}/secrets`, {
      body: { name: "provider-key", value },
    });
    expect(secret.status, secret.text).toBe(201);
    const sa = await call(api, "POST", `/namespaces/${id}/service-accounts`, {
      body: {
        name: "provider",
        credential: { kind: "api_key", secretRef: (secret.body.data as { id: string }).id },
      },
    });
    expect(sa.status, sa.text).toBe(201);
    const saId = (sa.body.data as { id: string }).id;
    const envOf = async (name: string) =>
      (
        await admin.get<{
          metadata?: ObjectMeta;
          spec: { template: { spec: { containers: { env: { name: string }[] }[] } } };
        }>("Deployment", { name, namespace: ns })
      ).spec.template.spec.containers[0]?.env.map((e) => e.name) ?? [];

    const plain = (await createAgent(api, id, "embedded", { model: "m1" }, saId)).agentId;
    const rev = await deploy(api, id, plain);
    expect(await agentPass(api, plain)).toMatchObject({ move: "defer" });
    const n = workloadNames(plain, rev);
    const creds = await admin.get<Obj>("Secret", { name: n.credentials, namespace: ns });
    expect(Buffer.from(creds.data?.["provider-credential"] ?? "", "base64").toString()).toBe(value);
    expect(creds.data?.["gateway-token"]).toBeDefined();
    expect(await envOf(n.gateway)).toContain("OPENCLAW_PROVIDER_CREDENTIAL");

    const proxied = (await createAgent(api, id, "embedded", { model: "m1" }, saId)).agentId;
    const rev2 = await deploy(api, id, proxied);
    const egressAuthority = { namespace: "egress-system", podLabels: {}, port: 3128 };
    expect(await agentPass(api, proxied, { egressAuthority })).toMatchObject({ move: "defer" });
    const m = workloadNames(proxied, rev2);
    const creds2 = await admin.get<Obj>("Secret", { name: m.credentials, namespace: ns });
    expect(creds2.data?.["provider-credential"]).toBeUndefined();
    expect(await envOf(m.gateway)).not.toContain("OPENCLAW_PROVIDER_CREDENTIAL");
  });
});

describe("Credential Proxy removed", () => {
  it("deletes the Agent's egress policy once the Installation has no egress authority", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId } = await createAgent(api, id, "embedded");
    const rev = await deploy(api, id, agentId);
    const egressAuthority = { namespace: "egress-system", podLabels: {}, port: 3128 };
    expect(await agentPass(api, agentId, { egressAuthority })).toMatchObject({ move: "defer" });
    const { egressPolicy, gateway } = workloadNames(agentId, rev);
    expect(await admin.find("NetworkPolicy", { name: egressPolicy, namespace: ns })).toBeDefined();
    expect(await agentPass(api, agentId)).toMatchObject({ move: "defer" });
    expect(
      await admin.find("NetworkPolicy", { name: egressPolicy, namespace: ns }),
    ).toBeUndefined();
    await markAvailable(ns, gateway);
    expect(await agentPass(api, agentId)).toMatchObject({ move: "complete" });
  });
});

describe("Pod Security", () => {
  it("the gateway and harness pods are admitted by the tenant namespace's restricted Pod Security (a relaxed pod is not)", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId } = await createAgent(api, id, "dedicated");
    const rev = await deploy(api, id, agentId);
    expect(await agentPass(api, agentId)).toMatchObject({ move: "defer" });
    const n = workloadNames(agentId, rev);
    for (const name of [n.gateway, n.harness]) {
      const d = await admin.get<{
        metadata?: ObjectMeta;
        spec: { template: { spec: Record<string, unknown> } };
      }>("Deployment", { name, namespace: ns });
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `${name}-probe`, namespace: ns },
        spec: d.spec.template.spec,
      };
      await expect(admin.create("Pod", pod, { dryRun: true })).resolves.toBeDefined();
      // The same pod without the restricted settings: Pod Security refuses it (403), which
      // shows the namespace enforces the profile the workload pods pass.
      const relaxed = {
        ...pod,
        spec: {
          ...d.spec.template.spec,
          securityContext: {},
          containers: [{ name: "relaxed", image: "busybox" }],
        },
      };
      await expect(admin.create("Pod", relaxed, { dryRun: true })).rejects.toMatchObject({
        status: 403,
      });
    }
  });
});
