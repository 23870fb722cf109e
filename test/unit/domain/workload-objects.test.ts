import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  RESTRICTED_CONTAINER_SECURITY,
  RESTRICTED_POD_SECURITY,
  WORKLOAD_KEYS,
  desiredWorkloadObjects,
  h,
  workloadObjectAction,
  gatewayServes,
  type DesiredWorkloadObject,
  type WorkloadInput,
} from "../../../src/domain/index.js";
import { workloadSettings } from "../../harness/workloads.js";
import { AGENT, REV1, REV2, TENANT } from "./fixtures.js";

function input(overrides: Partial<WorkloadInput> = {}): WorkloadInput {
  return {
    tenantId: TENANT,
    namespace: "tenant-ns",
    agentId: AGENT,
    executionMode: "dedicated",
    revisionId: REV1,
    configurationDocument: '{"model":"m1"}',
    workloads: workloadSettings(),
    egressAuthority: null,
    dns: { namespace: "kube-system", podLabels: { "k8s-app": "kube-dns" } },
    gatewayPort: 18789,
    credentialKind: null,
    ...overrides,
  };
}

const EGRESS_AUTHORITY = { namespace: "egress", podLabels: {}, port: 3128, service: "proxy" };

const a = h(AGENT, 12);
const r1 = h(REV1, 12);
const names = (objects: readonly DesiredWorkloadObject[]) =>
  objects.map((d) => `${d.object.kind}/${d.object.metadata.name}/${d.scope.scope}`);

describe("desiredWorkloadObjects", () => {
  const account = `ServiceAccount/gateway-${a}/agent`;
  const config = `ConfigMap/agent-config-${r1}/revision`;
  const credentials = `Secret/agent-credentials-${r1}/revision`;
  const egressPolicy = `NetworkPolicy/agent-egress-${a}/agent`;
  const service = `Service/gateway-${a}/agent`;
  const harness = `Deployment/harness-${r1}/revision`;
  const gateway = `Deployment/gateway-${a}/agent`;
  it.each([
    {
      mode: "dedicated" as const,
      egress: false,
      expected: [account, config, credentials, service, harness, gateway],
    },
    {
      mode: "embedded" as const,
      egress: false,
      expected: [account, config, credentials, service, gateway],
    },
    {
      mode: "embedded" as const,
      egress: true,
      expected: [account, config, credentials, egressPolicy, service, gateway],
    },
  ])(
    "renders the $mode objects (egress authority: $egress) in write order",
    ({ mode, egress, expected }) => {
      const objects = desiredWorkloadObjects(
        input({
          executionMode: mode,
          egressAuthority: egress ? EGRESS_AUTHORITY : null,
        }),
      );
      expect(names(objects)).toEqual(expected);
      for (const d of objects) {
        expect(d.object.metadata.namespace).toBe("tenant-ns");
        expect(d.object.metadata.labels).toMatchObject({
          [LABELS.managedBy]: "openclaw-enterprise",
          [LABELS.namespace]: TENANT,
          [LABELS.agent]: AGENT,
        });
        expect(d.object.metadata.annotations).toMatchObject({
          [ANNOTATIONS.namespaceId]: TENANT,
          [ANNOTATIONS.agentId]: AGENT,
        });
        const revisionScoped = d.scope.scope === "revision";
        expect(d.object.metadata.labels[LABELS.revision]).toBe(revisionScoped ? REV1 : undefined);
        expect(d.object.metadata.annotations[ANNOTATIONS.revisionId]).toBe(
          revisionScoped ? REV1 : undefined,
        );
      }
    },
  );

  it("schedules the harness beside the gateway pod, the two sharing one ReadWriteOnce workspace claim", () => {
    const objects = desiredWorkloadObjects(input());
    const deployments = objects.filter((d) => d.object.kind === "Deployment");
    const spec = (name: string) => {
      const found = deployments.find((d) => d.object.metadata.name === name)?.object as
        | {
            spec: {
              template: {
                metadata: { labels: Record<string, string> };
                spec: Record<string, unknown>;
              };
            };
          }
        | undefined;
      if (found === undefined) throw new Error(`no Deployment ${name}`);
      return found.spec.template;
    };
    const gateway = spec(`gateway-${a}`);
    const harness = spec(`harness-${r1}`);
    expect(harness.spec.affinity).toEqual({
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: gateway.metadata.labels },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    });
    expect(gateway.spec.affinity).toBeUndefined();
  });

  it("gives the gateway 1 replica, Recreate, restricted security, the gateway role and the network profile the tenant policies select", () => {
    const gateway = desiredWorkloadObjects(input()).at(-1)?.object;
    expect(gateway?.metadata.labels).toMatchObject({
      [LABELS.workloadRole]: "gateway",
      [LABELS.networkProfile]: "broad-egress-v1",
    });
    expect(gateway?.spec).toMatchObject({
      replicas: 1,
      strategy: { type: "Recreate" },
      template: {
        metadata: {
          labels: { [LABELS.workloadRole]: "gateway", [LABELS.networkProfile]: "broad-egress-v1" },
          annotations: { [WORKLOAD_KEYS.activeRevision]: REV1 },
        },
        spec: {
          securityContext: RESTRICTED_POD_SECURITY,
          containers: [{ securityContext: RESTRICTED_CONTAINER_SECURITY, image: "gw:1" }],
          volumes: [
            { name: "config", configMap: { name: `agent-config-${r1}` } },
            { name: "state", persistentVolumeClaim: { claimName: `gateway-state-${a}` } },
            { name: "workspace", persistentVolumeClaim: { claimName: `workspace-${a}` } },
          ],
        },
      },
    });
  });

  it("renders the ConfigMap from the configuration snapshot", () => {
    const config = desiredWorkloadObjects(input()).find((d) => d.object.kind === "ConfigMap");
    expect(config?.object.data).toEqual({ "openclaw.json": '{"model":"m1"}' });
  });

  it("keeps the gateway's name and selector across revisions, and changes its spec hash", () => {
    const gw = (rev: string) =>
      desiredWorkloadObjects(input({ revisionId: rev })).find(
        (d) => d.object.kind === "Deployment" && d.scope.scope === "agent",
      )?.object;
    const one = gw(REV1);
    const two = gw(REV2);
    expect(two?.metadata.name).toBe(one?.metadata.name);
    expect((two?.spec as { selector: unknown }).selector).toEqual(
      (one?.spec as { selector: unknown }).selector,
    );
    expect(two?.metadata.annotations[WORKLOAD_KEYS.specHash]).not.toBe(
      one?.metadata.annotations[WORKLOAD_KEYS.specHash],
    );
  });
});

describe("workloadObjectAction", () => {
  const gateway = desiredWorkloadObjects(input()).at(-1) as DesiredWorkloadObject;
  const secret = desiredWorkloadObjects(input()).find(
    (d) => d.object.kind === "Secret",
  ) as DesiredWorkloadObject;
  const observed = (d: DesiredWorkloadObject, meta: Record<string, unknown> = {}) => ({
    metadata: { ...d.object.metadata, ...meta },
  });
  const hashed = (d: DesiredWorkloadObject, hash: string) => ({
    ...d.object.metadata.annotations,
    [WORKLOAD_KEYS.specHash]: hash,
  });
  it.each([
    { case: "absent", obj: null, desired: gateway, action: "create" },
    {
      case: "same hash",
      obj: observed(gateway, { resourceVersion: "5" }),
      desired: gateway,
      action: "none",
    },
    {
      case: "other hash",
      obj: observed(gateway, { resourceVersion: "5", annotations: hashed(gateway, "x") }),
      desired: gateway,
      action: "update",
    },
    {
      case: "foreign markers",
      obj: observed(gateway, {
        labels: { ...gateway.object.metadata.labels, [LABELS.agent]: "agt_other" },
      }),
      desired: gateway,
      action: "stop",
    },
    {
      case: "terminating",
      obj: observed(gateway, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      desired: gateway,
      action: "stop",
    },
    {
      case: "create-only secret with any content",
      obj: observed(secret, { annotations: hashed(secret, "old") }),
      desired: secret,
      action: "none",
    },
  ])("$case → $action", ({ obj, desired, action }) => {
    expect(workloadObjectAction(obj, desired, TENANT, AGENT).action).toBe(action);
  });
});

describe("gatewayServes", () => {
  const available = {
    metadata: { generation: 3, annotations: { [WORKLOAD_KEYS.activeRevision]: REV1 } },
    status: {
      observedGeneration: 3,
      availableReplicas: 1,
      updatedReplicas: 1,
      conditions: [{ type: "Available", status: "True" }],
    },
  };
  it.each([
    { case: "available for the revision", d: available, rev: REV1, serves: true },
    { case: "another revision", d: available, rev: REV2, serves: false },
    { case: "absent", d: null, rev: REV1, serves: false },
    {
      case: "stale generation",
      d: { ...available, status: { ...available.status, observedGeneration: 2 } },
      rev: REV1,
      serves: false,
    },
    {
      case: "no available replica",
      d: { ...available, status: { ...available.status, availableReplicas: 0 } },
      rev: REV1,
      serves: false,
    },
    {
      case: "Available=False",
      d: {
        ...available,
        status: { ...available.status, conditions: [{ type: "Available", status: "False" }] },
      },
      rev: REV1,
      serves: false,
    },
  ])("$case → $serves", ({ d, rev, serves }) => {
    expect(gatewayServes(d, rev)).toBe(serves);
  });
});

describe("provider credentials", () => {
  const envNames = (i: WorkloadInput) => {
    const gw = desiredWorkloadObjects(i).at(-1)?.object.spec as {
      template: { spec: { containers: { env: { name: string }[] }[] } };
    };
    return gw.template.spec.containers[0]?.env.map((e) => e.name) ?? [];
  };
  it.each([
    { credentialKind: null, egress: false, present: false },
    { credentialKind: "api_key", egress: false, present: true },
    { credentialKind: "api_key", egress: true, present: false },
  ])(
    "credential $credentialKind, Credential Proxy $egress → in the gateway env: $present",
    ({ credentialKind, egress, present }) => {
      const names = envNames(
        input({
          credentialKind,
          egressAuthority: egress ? EGRESS_AUTHORITY : null,
        }),
      );
      expect(names.includes("OPENCLAW_PROVIDER_CREDENTIAL")).toBe(present);
      expect(names.includes("HTTPS_PROXY")).toBe(egress);
    },
  );
});
