import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type OccApp } from "../../../src/api/app.js";
import { PREPROVISIONED_MESSAGES, type NamespaceId } from "../../../src/domain/index.js";
import { isKubeError } from "../../../src/drivers/kubernetes/client/index.js";
import { createTenantDrivers } from "../../../src/drivers/factory.js";
import { driverProfileOf } from "../../../src/drivers/profile.js";
import type { Db } from "../../../src/store/db.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import { createBootstrappedDatabase } from "../../harness/db.js";
import { admin } from "../../harness/preprovisioned.js";
import { driverFor, passInput, prepare, profileConfig, type Prepared } from "./fixtures.js";
import { closePrepared, postWithKey } from "./file-stacks.js";

let p: Prepared;
let db: Db;
let drop: () => Promise<void>;
let app: OccApp;
let key: string;
let id: NamespaceId;

beforeAll(async () => {
  // The operator binds the bootstrapped `default` Namespace, as the seed's procedure does.
  ({ db, drop, apiKey: key, defaultNamespaceId: id } = await createBootstrappedDatabase());
  p = await prepare(profileConfig(), id);
  app = await buildApp({
    db,
    controllerNamespace: "openclaw-system",
    drivers: createTenantDrivers(p.api, driverProfileOf(p.config, p.binding)),
  });
  const result = await driverFor(p).ensureNamespace(passInput(id));
  if (result.outcome !== "ready") throw new Error(JSON.stringify(result));
  await applyProvisioningOutcome(db, id, {
    to: "ready",
    binding: { namespace: result.namespaceName, uid: result.uid },
  });
});

afterAll(async () => {
  await app.close();
  closePrepared(p);
  await drop();
});

const post = (path: string, body: object) => postWithKey(app, key, path, body);

describe("Configurations and Secrets in the preprovisioned namespace", () => {
  it("the API identity may not list namespaces", async () => {
    const err = await p.api.list("Namespace").catch((e: unknown) => e);
    expect(isKubeError(err, "forbidden")).toBe(true);
  });

  it("a Configuration and a Secret land in the bound namespace (get by name, no list)", async () => {
    const cfg = await post(`/namespaces/${id}/configurations`, {
      kind: "agent",
      values: { model: "m" },
    });
    expect(cfg.status).toBe(201);
    const secret = await post(`/namespaces/${id}/secrets`, {
      name: "provider-key",
      value: "s3cret",
    });
    expect(secret.status).toBe(201);
    const maps = await admin().list("ConfigMap", {
      namespace: p.name,
      labelSelector: `openclaw.dev/namespace=${id}`,
    });
    expect(maps).toHaveLength(1);
    const secrets = await admin().list("Secret", {
      namespace: p.name,
      labelSelector: `openclaw.dev/namespace=${id}`,
    });
    expect(secrets).toHaveLength(1);
    const read = await app.inject({
      method: "GET",
      url: `/namespaces/${id}/configurations/${cfg.body.data?.id ?? ""}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(read.statusCode).toBe(200);
  });

  it("a namespace that no longer matches is refused with the seed's message", async () => {
    const label = "pod-security.kubernetes.io/warn";
    await admin().patch(
      "Namespace",
      { name: p.name },
      { metadata: { labels: { [label]: "baseline" } } },
      { type: "merge" },
    );
    try {
      const res = await post(`/namespaces/${id}/configurations`, {
        kind: "agent",
        values: { model: "m" },
      });
      expect([res.status, res.body.error?.code]).toEqual([503, "KUBERNETES_OWNERSHIP_CONFLICT"]);
      expect(res.body.error?.message).toContain(PREPROVISIONED_MESSAGES.namespaceMismatch);
    } finally {
      await admin().patch(
        "Namespace",
        { name: p.name },
        { metadata: { labels: { [label]: "restricted" } } },
        { type: "merge" },
      );
    }
  });
});
