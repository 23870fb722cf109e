/**
 * The Agent routes on PGlite (drivers.md §4): authorization before existence, references
 * checked in the Namespace, readiness for deploy, deletion queueing teardown, and the
 * Namespace refusing deletion while an Agent remains. The Kubernetes side is covered by
 * test/integration/workloads.
 */
import { describe, expect, it } from "vitest";
import { AgentSchema } from "../../../src/contract/agents.js";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { newTenantResourceId } from "../../../src/domain/tenant/resources.js";
import { isAgentId, newRevisionId, type AgentId } from "../../../src/domain/workloads/ids.js";
import { insertAgentRevision } from "../../../src/store/agent-revisions.js";
import { insertConfiguration } from "../../../src/store/configurations.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import {
  apiForFile,
  call,
  createNamespace,
  counts,
  dataOf,
  errorOf,
  pageOf,
  principalWith,
} from "../../harness/api-app.js";

const fx = await apiForFile();

/** A Configuration row as the Configuration Driver would have recorded it. */
async function configuration(ns: NamespaceId): Promise<string> {
  const id = newTenantResourceId("configuration");
  await insertConfiguration(fx.raw, {
    id,
    namespaceId: ns,
    kind: "agent",
    kubernetesNamespace: "k8s-ns",
    namespaceUid: "uid-ns",
    objectName: "occ-cfg-x",
    objectUid: `uid-${id}`,
    resourceVersion: "1",
    contentSha256: "0".repeat(64),
  });
  return id;
}

const agents = (ns: string) => `/namespaces/${ns}/agents`;

function agentIdOf(value: string): AgentId {
  if (!isAgentId(value)) throw new Error(`not an Agent ID: ${value}`);
  return value;
}

const a = await createNamespace(fx, "tenant-a");
const b = await createNamespace(fx, "tenant-b");
const cfgA = await configuration(a);
const cfgB = await configuration(b);

async function newAgent(ns: NamespaceId, cfg: string, name: string) {
  const r = await call(fx.app, "POST", agents(ns), {
    key: fx.adminKey,
    body: { name, configurationId: cfg, executionMode: "dedicated" },
  });
  expect(r.status, r.text).toBe(201);
  return dataOf(r, AgentSchema);
}

describe("POST /namespaces/{id}/agents", () => {
  it("creates the record only (no work, no Kubernetes object) while the Namespace provisions", async () => {
    const before = await counts(fx.raw);
    const agent = await newAgent(a, cfgA, "support-bot");
    expect(agent).toMatchObject({
      namespaceId: a,
      name: "support-bot",
      configurationId: cfgA,
      executionMode: "dedicated",
      serviceAccountId: null,
      status: "active",
      currentRevisionId: null,
      statusReason: null,
    });
    expect(agent.id).toMatch(/^agt_[0-9a-f-]{36}$/);
    const after = await counts(fx.raw);
    expect(after.work_items).toBe(before.work_items);
    expect(after.mutations).toBe(before.mutations + 1);
  });

  it.each([
    {
      case: "a Configuration of another Namespace",
      body: () => ({ configurationId: cfgB }),
      path: "/body/configurationId",
    },
    {
      case: "an unknown ServiceAccount",
      body: () => ({
        configurationId: cfgA,
        serviceAccountId: "sa_00000000-0000-4000-8000-000000000000",
      }),
      path: "/body/serviceAccountId",
    },
  ])("refuses $case with 400", async ({ body, path }) => {
    const r = await call(fx.app, "POST", agents(a), {
      key: fx.adminKey,
      body: { name: "x", executionMode: "embedded", ...body() },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error.details).toEqual([{ path, code: "invalid_value" }]);
  });

  it("refuses a duplicate name with 409 and an unknown execution mode with 400", async () => {
    await newAgent(a, cfgA, "dup");
    const dup = await call(fx.app, "POST", agents(a), {
      key: fx.adminKey,
      body: { name: "dup", configurationId: cfgA, executionMode: "embedded" },
    });
    expect(errorOf(dup).error.code).toBe("RESOURCE_CONFLICT");
    const bad = await call(fx.app, "POST", agents(a), {
      key: fx.adminKey,
      body: { name: "bad", configurationId: cfgA, executionMode: "docker" },
    });
    expect(bad.status).toBe(400);
  });

  it("authorizes before existence: 403 for a Namespace the caller has no grant in, existing or not", async () => {
    const reader = await principalWith(fx, "agent-reader", [{ action: "read", kind: "agent" }], a);
    for (const ns of [b, "ns_00000000-0000-4000-8000-000000000000"]) {
      const r = await call(fx.app, "GET", agents(ns), { key: reader.key });
      expect(r.status).toBe(403);
    }
    const r = await call(fx.app, "POST", agents(a), {
      key: reader.key,
      body: { name: "nope", configurationId: cfgA, executionMode: "embedded" },
    });
    expect(r.status).toBe(403);
    expect(
      pageOf(await call(fx.app, "GET", agents(a), { key: reader.key }), AgentSchema).items.length,
    ).toBeGreaterThan(0);
  });
});

describe("GET /namespaces/{id}/agents/{agentId}", () => {
  it("reads an Agent of the Namespace and 404s one of another Namespace", async () => {
    const agent = await newAgent(a, cfgA, "readable");
    const ok = await call(fx.app, "GET", `${agents(a)}/${agent.id}`, { key: fx.adminKey });
    expect(dataOf(ok, AgentSchema).id).toBe(agent.id);
    const other = await call(fx.app, "GET", `${agents(b)}/${agent.id}`, { key: fx.adminKey });
    expect(other.status).toBe(404);
  });
});

describe("POST …/agents/{agentId}/deploy", () => {
  it("requires a ready Namespace (409 NAMESPACE_NOT_READY) and stores nothing", async () => {
    const agent = await newAgent(b, cfgB, "early");
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", `${agents(b)}/${agent.id}/deploy`, { key: fx.adminKey });
    expect(errorOf(r).error.code).toBe("NAMESPACE_NOT_READY");
    expect((await counts(fx.raw)).work_items).toBe(before.work_items);
  });

  it("answers 503 without a Kubernetes client (the snapshot is read from the ConfigMap) and stores nothing", async () => {
    await applyProvisioningOutcome(fx.raw, b, {
      to: "ready",
      binding: { namespace: "k8s-ns", uid: "00000000-0000-4000-8000-0000000000ff" },
    });
    const agent = await newAgent(b, cfgB, "no-kube");
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", `${agents(b)}/${agent.id}/deploy`, { key: fx.adminKey });
    expect(errorOf(r).error.code).toBe("DEPENDENCY_UNAVAILABLE");
    expect((await counts(fx.raw)).work_items).toBe(before.work_items);
    const revisions = await fx.raw.query("SELECT 1 FROM agent_revisions WHERE agent_id = $1", [
      agent.id,
    ]);
    expect(revisions.rows).toHaveLength(0);
  });

  it("is refused (403) without agent:deploy", async () => {
    const agent = await newAgent(b, cfgB, "guarded");
    const creator = await principalWith(
      fx,
      "agent-creator",
      [{ action: "create", kind: "agent" }],
      b,
    );
    const r = await call(fx.app, "POST", `${agents(b)}/${agent.id}/deploy`, { key: creator.key });
    expect(r.status).toBe(403);
  });
});

describe("DELETE …/agents/{agentId} and the Namespace", () => {
  it("queues teardown once (202, deleting), refuses deploys, and keeps the Namespace from being deleted", async () => {
    const agent = await newAgent(b, cfgB, "doomed");
    const first = await call(fx.app, "DELETE", `${agents(b)}/${agent.id}`, { key: fx.adminKey });
    expect(first.status).toBe(202);
    expect(dataOf(first, AgentSchema).status).toBe("deleting");
    const again = await call(fx.app, "DELETE", `${agents(b)}/${agent.id}`, { key: fx.adminKey });
    expect(again.status).toBe(202);
    const work = await fx.raw.query<{ kind: string; subject: string }>(
      "SELECT kind, subject FROM work_items WHERE idempotency_key = $1",
      [`agent:${agent.id}:deleted`],
    );
    expect(work.rows).toEqual([{ kind: "agent.teardown", subject: `agent:${agent.id}` }]);
    const deploy = await call(fx.app, "POST", `${agents(b)}/${agent.id}/deploy`, {
      key: fx.adminKey,
    });
    expect(errorOf(deploy).error.code).toBe("RESOURCE_CONFLICT");

    const refused = await call(fx.app, "DELETE", `/namespaces/${b}`, { key: fx.adminKey });
    expect(refused.status).toBe(409);
    expect(errorOf(refused).error.code).toBe("NAMESPACE_NOT_EMPTY");
    expect(errorOf(refused).error.message).toContain("Agents");
  });
});

describe("AgentRevisions", () => {
  it("are immutable: only their lifecycle columns change", async () => {
    const agent = await newAgent(a, cfgA, "immutable");
    const revision = await insertAgentRevision(fx.raw, {
      id: newRevisionId(),
      agentId: agentIdOf(agent.id),
      namespaceId: a,
      configurationId: cfgA,
      configurationGeneration: 1,
      configurationDocument: "{}",
      executionMode: "dedicated",
      serviceAccountId: null,
      compute: { source: "bundled", name: "kubernetes" },
    });
    expect(revision.number).toBe(1);
    await expect(
      fx.raw.query(
        "UPDATE agent_revisions SET configuration_document = '{\"x\":1}' WHERE id = $1",
        [revision.id],
      ),
    ).rejects.toThrow(/immutable/);
    await fx.raw.query("UPDATE agent_revisions SET status = 'superseded' WHERE id = $1", [
      revision.id,
    ]);
  });

  it("need agent_revision:read: agent:read alone lists Agents but not their revisions", async () => {
    const agent = await newAgent(a, cfgA, "revisions-guarded");
    const reader = await principalWith(
      fx,
      "agent-only-reader",
      [{ action: "read", kind: "agent" }],
      a,
    );
    expect(
      (await call(fx.app, "GET", `${agents(a)}/${agent.id}`, { key: reader.key })).status,
    ).toBe(200);
    const r = await call(fx.app, "GET", `${agents(a)}/${agent.id}/revisions`, { key: reader.key });
    expect(r.status).toBe(403);
    const admin = await call(fx.app, "GET", `${agents(a)}/${agent.id}/revisions`, {
      key: fx.adminKey,
    });
    expect(admin.status).toBe(200);
  });
});

describe("what an Agent references", () => {
  it("cannot be deleted: the Configuration and the ServiceAccount answer 409 naming the Agent", async () => {
    const sa = await call(fx.app, "POST", `/namespaces/${b}/service-accounts`, {
      key: fx.adminKey,
      body: { name: "runner" },
    });
    expect(sa.status, sa.text).toBe(201);
    const saId = (sa.body as { data: { id: string } }).data.id;
    const agent = await call(fx.app, "POST", agents(b), {
      key: fx.adminKey,
      body: {
        name: "uses-both",
        configurationId: cfgB,
        executionMode: "embedded",
        serviceAccountId: saId,
      },
    });
    expect(agent.status, agent.text).toBe(201);

    for (const path of [`configurations/${cfgB}`, `service-accounts/${saId}`]) {
      const refused = await call(fx.app, "DELETE", `/namespaces/${b}/${path}`, {
        key: fx.adminKey,
      });
      expect(refused.status, path).toBe(409);
      expect(errorOf(refused).error.code).toBe("RESOURCE_CONFLICT");
      expect(errorOf(refused).error.message).toMatch(/is used by \d+ Agent\(s\): .*uses-both/);
    }
    const still = await fx.raw.query(
      "SELECT (SELECT count(*) FROM configurations WHERE id = $1)::int AS c, (SELECT count(*) FROM service_accounts WHERE id = $2)::int AS s",
      [cfgB, saId],
    );
    expect(still.rows[0]).toEqual({ c: 1, s: 1 });
  });
});
