import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREPROVISIONED_MESSAGES } from "../../../src/domain/index.js";
import {
  createOpenShellGateway,
  type OpenShellGateway,
} from "../../../src/drivers/openshell/gateway-client.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { admin } from "../../harness/preprovisioned.js";
import {
  driverFor,
  passInput,
  prepare,
  profileConfig,
  type Prepared,
} from "../preprovisioned/fixtures.js";
import { closePrepared, expectOwnershipRefusal } from "../preprovisioned/file-stacks.js";

let gw: TestGateway;
let client: OpenShellGateway;
let p: Prepared;

const OPERATOR_RESOURCES = [
  ["ServiceAccount", "openshell-sandbox"],
  ["Role", "openshell-sandbox"],
  ["RoleBinding", "openshell-sandbox"],
  ["NetworkPolicy", "openshell-sandbox-egress"],
] as const;

beforeAll(async () => {
  gw = await startTestGateway();
  p = await prepare(profileConfig({}, gw.endpoint));
  if (p.config.openshell === null) throw new Error("no openshell settings");
  client = createOpenShellGateway(p.config.openshell);
});

afterAll(async () => {
  client.close();
  await gw.stop();
  closePrepared(p);
});

const driver = () => driverFor(p, [], p.binding, client);

async function versions(): Promise<string[]> {
  return Promise.all(
    OPERATOR_RESOURCES.map(async ([kind, name]) => {
      const o = await admin().get(kind, { name, namespace: p.name });
      return `${kind}/${name}@${o.metadata.resourceVersion ?? ""}`;
    }),
  );
}

describe("the OpenShell Sandbox Driver, preprovisioned", () => {
  it("applies nothing, compares the operator's resources, and ensures the owned ACTIVE Workspace", async () => {
    expect((await client.health()).status).toBe("SERVICE_STATUS_HEALTHY");
    const before = await versions();
    const result = await driver().ensureNamespace(passInput(p.id));
    expect(result).toMatchObject({ outcome: "ready", namespaceName: p.name });
    expect(await versions()).toEqual(before);
    const workspace = gw.workspaces.get(p.name);
    expect(workspace).toMatchObject({
      phase: "WORKSPACE_PHASE_ACTIVE",
      labels: {
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": p.id,
      },
    });
    // Idempotent: the next pass finds the Workspace and creates nothing.
    const creates = gw.calls.filter((c) => c === "CreateWorkspace").length;
    expect((await driver().ensureNamespace(passInput(p.id))).outcome).toBe("ready");
    expect(gw.calls.filter((c) => c === "CreateWorkspace").length).toBe(creates);
  });

  it.each([
    [
      "a Role rule",
      "Role",
      "openshell-sandbox",
      [{ op: "replace", path: "/rules/0/verbs", value: ["get"] }],
    ],
    [
      "a ServiceAccount field",
      "ServiceAccount",
      "openshell-sandbox",
      [{ op: "add", path: "/automountServiceAccountToken", value: false }],
    ],
    [
      "a RoleBinding subject",
      "RoleBinding",
      "openshell-sandbox",
      [{ op: "replace", path: "/subjects/0/name", value: "someone-else" }],
    ],
  ] as const)(
    "one changed field outside metadata/status (%s) → the seed's message",
    async (_, kind, name, patch) => {
      const ref = { name, namespace: p.name };
      const original = await admin().get(kind, ref);
      await admin().patch(kind, ref, patch, { type: "json" });
      try {
        const before = await versions();
        expectOwnershipRefusal(
          await driver().ensureNamespace(passInput(p.id)),
          PREPROVISIONED_MESSAGES.operatorResource,
        );
        expect(await versions()).toEqual(before);
      } finally {
        await admin().patch(kind, ref, { ...original, metadata: undefined }, { type: "merge" });
        if (kind === "ServiceAccount") {
          await admin().patch(
            kind,
            ref,
            [{ op: "remove", path: "/automountServiceAccountToken" }],
            { type: "json" },
          );
        }
      }
      expect((await driver().ensureNamespace(passInput(p.id))).outcome).toBe("ready");
    },
  );

  it("a changed label or annotation (metadata) is not a difference", async () => {
    const ref = { name: "openshell-sandbox", namespace: p.name };
    await admin().patch("Role", ref, { metadata: { labels: { extra: "ok" } } }, { type: "merge" });
    expect((await driver().ensureNamespace(passInput(p.id))).outcome).toBe("ready");
  });

  it("cleanup deletes the Workspace on the gateway and leaves every operator resource; deletion is then refused", async () => {
    gw.drainMs = 300;
    const first = await driver().deleteNamespace(passInput(p.id));
    expect(first).toMatchObject({ outcome: "pending", code: "SANDBOX_WORKSPACE_PENDING" });
    expect(gw.workspaces.get(p.name)?.phase).toBe("WORKSPACE_PHASE_TERMINATING");
    await new Promise((r) => setTimeout(r, 400));
    const second = await driver().deleteNamespace(passInput(p.id));
    expect(second).toEqual({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      reason: PREPROVISIONED_MESSAGES.deletion,
      retryable: false,
    });
    expect(gw.workspaces.has(p.name)).toBe(false);
    for (const [kind, name] of OPERATOR_RESOURCES) {
      expect(await admin().find(kind, { name, namespace: p.name })).toBeDefined();
    }
    expect(await admin().find("Namespace", { name: p.name })).toBeDefined();
  });

  it("a Workspace of that name that is not ours is never used", async () => {
    gw.workspaces.set(p.name, {
      id: "x",
      name: p.name,
      labels: { other: "owner" },
      phase: "WORKSPACE_PHASE_ACTIVE",
    });
    const result = await driver().ensureNamespace(passInput(p.id));
    expect(result).toMatchObject({ outcome: "failed", code: "SANDBOX_GATEWAY_REJECTED" });
    expect(await driver().deleteNamespace(passInput(p.id))).toMatchObject({
      code: "SANDBOX_GATEWAY_REJECTED",
    });
    expect(gw.workspaces.get(p.name)?.labels).toEqual({ other: "owner" });
    gw.workspaces.delete(p.name);
  });

  it("an unreachable gateway is a retryable failure, never ready", async () => {
    if (p.config.openshell === null) throw new Error("no openshell settings");
    const down = createOpenShellGateway({
      ...p.config.openshell,
      endpoint: "127.0.0.1:1",
      requestTimeoutMs: 1_000,
    });
    try {
      const result = await driverFor(p, [], p.binding, down).ensureNamespace(passInput(p.id));
      expect(result).toMatchObject({
        outcome: "failed",
        code: "SANDBOX_GATEWAY_UNAVAILABLE",
        retryable: true,
      });
    } finally {
      down.close();
    }
  });
});
