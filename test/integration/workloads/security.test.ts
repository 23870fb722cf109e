/**
 * What Agent workloads may reach and hold: the Credential Proxy's egress policy and proxy
 * settings, ServiceAccount credentials, and restricted Pod Security.
 */
import { describe, expect, it } from "vitest";
import {
  LABELS,
  workloadNames,
  type AgentId,
  type NamespaceId,
} from "../../../src/domain/index.js";
import type { KubernetesWorkloadDriverOptions } from "../../../src/drivers/kubernetes/workloads/driver.js";
import { admin } from "../compute/fixtures.js";
import { call, readyExternal, tenantApiForFile } from "../tenant/fixtures.js";
import { agentPass, createAgent, deploy, markAvailable } from "./fixtures.js";
import { podSpecOf } from "./pod-spec.js";

const api = await tenantApiForFile();

/** The Installation's egress authority (a Credential Proxy) where a test does not look at it. */
const EGRESS_AUTHORITY = {
  namespace: "egress-system",
  podLabels: {},
  port: 3128,
  service: "egress-authority",
};

/**
 * Deploys the Agent and runs one pass, which writes the revision's objects and defers until
 * its rollout is available; returns those objects' names.
 */
async function deployAndPass(
  id: NamespaceId,
  agentId: AgentId,
  extra: Partial<KubernetesWorkloadDriverOptions> = {},
) {
  const rev = await deploy(api, id, agentId);
  expect(await agentPass(api, agentId, extra)).toMatchObject({ move: "defer" });
  return workloadNames(agentId, rev);
}

describe("Credential Proxy", () => {
  it("renders an Agent-scoped egress policy to DNS and the egress authority only, and sets HTTPS_PROXY/HTTP_PROXY", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId } = await createAgent(api, id, "dedicated");
    const egressAuthority = {
      namespace: "egress-system",
      podLabels: { app: "egress" },
      port: 3128,
      service: "credential-proxy",
    };
    const n = await deployAndPass(id, agentId, { egressAuthority });
    const policy = await admin.get("NetworkPolicy", {
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
      const d = await admin.get("Deployment", { name, namespace: ns });
      const env = podSpecOf(d).containers[0]?.env ?? [];
      const url = "http://credential-proxy.egress-system.svc:3128";
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
      podSpecOf(await admin.get("Deployment", { name, namespace: ns })).containers[0]?.env?.map(
        (e) => e.name,
      ) ?? [];

    const plain = (await createAgent(api, id, "embedded", { model: "m1" }, saId)).agentId;
    const n = await deployAndPass(id, plain);
    const creds = await admin.get("Secret", { name: n.credentials, namespace: ns });
    expect(Buffer.from(creds.data?.["provider-credential"] ?? "", "base64").toString()).toBe(value);
    expect(creds.data?.["gateway-token"]).toBeDefined();
    expect(await envOf(n.gateway)).toContain("OPENCLAW_PROVIDER_CREDENTIAL");

    const proxied = (await createAgent(api, id, "embedded", { model: "m1" }, saId)).agentId;
    const m = await deployAndPass(id, proxied, { egressAuthority: EGRESS_AUTHORITY });
    const creds2 = await admin.get("Secret", { name: m.credentials, namespace: ns });
    expect(creds2.data?.["provider-credential"]).toBeUndefined();
    expect(await envOf(m.gateway)).not.toContain("OPENCLAW_PROVIDER_CREDENTIAL");
  });
});

describe("Credential Proxy removed", () => {
  it("deletes the Agent's egress policy once the Installation has no egress authority", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId } = await createAgent(api, id, "embedded");
    const { egressPolicy, gateway } = await deployAndPass(id, agentId, {
      egressAuthority: EGRESS_AUTHORITY,
    });
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
    const n = await deployAndPass(id, agentId);
    for (const name of [n.gateway, n.harness]) {
      const d = await admin.get("Deployment", { name, namespace: ns });
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `${name}-probe`, namespace: ns },
        spec: podSpecOf(d),
      };
      await expect(admin.create("Pod", pod, { dryRun: true })).resolves.toBeDefined();
      // The same pod without the restricted settings: Pod Security refuses it (403), which
      // shows the namespace enforces the profile the workload pods pass.
      const relaxed = {
        ...pod,
        spec: {
          ...podSpecOf(d),
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
