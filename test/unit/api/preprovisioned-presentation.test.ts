/**
 * In the preprovisioned profile the bound Namespace keeps the managed mode it was created
 * with in the database; the API and the placements gauge present it as `preprovisioned`, so
 * an operator sees where and how the tenant really lives. Every other Namespace is unchanged.
 */
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InstallationSchema, TimelineSchema } from "../../../src/contract/inspection.js";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import { currentManagedName, newNamespaceId } from "../../../src/domain/index.js";
import { registerControlPlaneMetrics } from "../../../src/main/metrics.js";
import { workerQueues } from "../../../src/work/queues.js";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { insertNamespace } from "../../../src/store/namespaces.js";
import { call, dataOf, errorOf, pageOf, startApi, type ApiFixture } from "../../harness/api-app.js";

let fx: ApiFixture;
let other: string;

beforeAll(async () => {
  fx = await startApi({ preprovisionDefaultNamespace: true });
  // A Namespace that already existed when the Installation was bound: the API refuses to
  // create one in this profile (409 NAMESPACE_NOT_PLACEABLE), so it is stored directly.
  const r = await insertNamespace(fx.raw, {
    id: newNamespaceId(),
    name: "second",
    placement: { mode: "managed" },
  });
  if (r.outcome !== "inserted") throw new Error(`insert: ${r.conflict}`);
  other = r.namespace.id;
});
afterAll(async () => {
  await fx.close();
});

describe("the bound Namespace in the preprovisioned profile", () => {
  it("reads as mode preprovisioned in oce-<hash15>; another Namespace stays managed", async () => {
    const bound = dataOf(
      await call(fx.app, "GET", `/namespaces/${fx.defaultNamespaceId}`, { key: fx.adminKey }),
      NamespaceSchema,
    );
    expect(bound.placement).toEqual({
      mode: "preprovisioned",
      kubernetesNamespace: currentManagedName(fx.defaultNamespaceId),
      uid: null,
      observedUid: null,
    });
    const second = dataOf(
      await call(fx.app, "GET", `/namespaces/${other}`, { key: fx.adminKey }),
      NamespaceSchema,
    );
    expect(second.placement.mode).toBe("managed");
  });

  it("is listed the same way", async () => {
    const page = pageOf(
      await call(fx.app, "GET", "/namespaces", { key: fx.adminKey }),
      NamespaceSchema,
    );
    const modes = Object.fromEntries(page.items.map((n) => [n.id, n.placement.mode]));
    expect(modes).toEqual({ [fx.defaultNamespaceId]: "preprovisioned", [other]: "managed" });
  });

  it("is counted under mode preprovisioned by the placements gauge", async () => {
    const registry = new Registry();
    registerControlPlaneMetrics(
      registry,
      fx.raw,
      workerQueues(validateInstallationConfig({}, "test")),
      {
        preprovisionedNamespaceId: fx.defaultNamespaceId,
      },
    );
    const text = await registry.metrics();
    expect(text).toMatch(
      /occ_namespace_placements\{mode="preprovisioned",status="provisioning",reason=""\} 1/,
    );
    expect(text).toMatch(
      /occ_namespace_placements\{mode="managed",status="provisioning",reason=""\} 1/,
    );
  });
});

describe("the console's Kubernetes questions in the preprovisioned profile", () => {
  it("the Installation reads preprovisioned with its bound namespace; no other namespace can be selected or preflighted; the timeline says why it has no Kubernetes Events", async () => {
    const installation = dataOf(
      await call(fx.app, "GET", "/installation", { key: fx.adminKey }),
      InstallationSchema,
    );
    expect(installation).toEqual({
      profile: "preprovisioned",
      boundNamespace: currentManagedName(fx.defaultNamespaceId),
      admissionPolicies: [],
      admissionPoliciesRefusal: null,
    });
    for (const path of [
      "/namespaces/preflight?existingNamespace=team-a",
      "/namespaces/selectable",
    ]) {
      const refused = await call(fx.app, "GET", path, { key: fx.adminKey });
      expect(refused.status, path).toBe(409);
      expect(errorOf(refused).error.code).toBe("NAMESPACE_NOT_PLACEABLE");
    }
    const timeline = dataOf(
      await call(fx.app, "GET", `/namespaces/${fx.defaultNamespaceId}/timeline`, {
        key: fx.adminKey,
      }),
      TimelineSchema,
    );
    expect(timeline.kubernetesEvents).toEqual([]);
    expect(timeline.kubernetesEventsRefusal?.code).toBe("DEPENDENCY_UNAVAILABLE");
  });
});
