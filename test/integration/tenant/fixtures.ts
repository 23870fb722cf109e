/**
 * The API in-process on a real PostgreSQL database, running its drivers as `occ-api` with
 * only the chart's cluster grants (plus whatever per-namespace RoleBinding a test creates),
 * and a Compute Driver as `occ-worker` to provision Namespaces the way the worker does.
 */
import pino from "pino";
import { afterAll, expect, inject } from "vitest";
import { buildApp, type OccApp } from "../../../src/api/app.js";
import { LABELS, type NamespaceId } from "../../../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  RequestCounter,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  startClaimantIndex,
  type RunningClaimantIndex,
} from "../../../src/drivers/kubernetes/tenant/claimant-index.js";
import type { ComputeDriver } from "../../../src/drivers/compute.js";
import { createTenantDrivers } from "../../../src/drivers/factory.js";
import type { Db } from "../../../src/store/db.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import { getNamespace, placementOf } from "../../../src/store/namespaces.js";
import { createBootstrappedDatabase } from "../../harness/db.js";
import { faulty, type FaultyDb } from "../../harness/faulty-db.js";
import { uniqueName } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, prepareExternal, workerDriver } from "../compute/fixtures.js";

export interface TenantApi {
  readonly app: OccApp;
  readonly db: Db;
  /** The drivers' client as `occ-api` (its request counter counts what they asked). */
  readonly kubernetes: ObjectClient;
  /** The claimant index the drivers' reads consult, when started with one. */
  readonly claimants: RunningClaimantIndex | null;
  readonly adminKey: string;
  readonly logs: string[];
  /** Runs `fn` while statements matching `predicate` fail like a lost connection. */
  whileFailing: FaultyDb["whileFailing"];
  close(): Promise<void>;
}

/** With `claimantIndex`, the API's claimant index is started as `occ api` starts it. */
export async function startTenantApi(
  opts: { readonly claimantIndex?: boolean } = {},
): Promise<TenantApi> {
  await grantChartClusterRoles();
  const database = await createBootstrappedDatabase();
  const db = faulty(database.db);
  const kubeconfig = loadKubeConfig(inject("env").kubeconfigs["occ-api"]);
  const kubernetes: ObjectClient = createObjectClient(kubeconfig);
  const claimants =
    opts.claimantIndex === true
      ? startClaimantIndex({ kubeconfig, counter: new RequestCounter() })
      : null;
  const logs: string[] = [];
  const logger = pino({ level: "trace" }, { write: (line: string) => void logs.push(line) });
  const app = await buildApp({
    db,
    controllerNamespace: "openclaw-system",
    drivers: createTenantDrivers(kubernetes, { kind: "normal" }, claimants),
    logger,
  });
  return {
    app,
    db,
    kubernetes,
    claimants,
    adminKey: database.apiKey,
    logs,
    whileFailing: (predicate, fn) => db.whileFailing(predicate, fn),
    async close() {
      await app.close();
      kubernetes.close();
      await claimants?.stop();
      await database.drop();
    },
  };
}

export interface Reply {
  readonly status: number;
  readonly body: { data?: unknown; error?: { code: string; message: string } };
  readonly text: string;
}

export async function call(
  api: TenantApi,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  opts: { key?: string; body?: unknown } = {},
): Promise<Reply> {
  const res = await api.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${opts.key ?? api.adminKey}` },
    ...(opts.body === undefined ? {} : { payload: opts.body as object }),
  });
  const body = res.body === "" ? {} : (JSON.parse(res.body) as Reply["body"]);
  return { status: res.statusCode, body, text: res.body };
}

/** Creates a Namespace through the API; returns its ID. */
export async function createTenant(api: TenantApi, name: string, existingNamespace?: string) {
  const res = await call(api, "POST", "/namespaces", {
    body: { name, ...(existingNamespace === undefined ? {} : { existingNamespace }) },
  });
  if (res.status !== 201) throw new Error(`create namespace: ${res.text}`);
  return (res.body.data as { id: NamespaceId }).id;
}

/**
 * One worker pass for `id`, recording its outcome as the worker does; returns the result's
 * outcome. The worker's tenant RoleBinding must exist for `ready`.
 */
export async function provision(api: TenantApi, id: NamespaceId): Promise<string> {
  return (await provisionResult(api, id)).outcome;
}

/**
 * {@link provision}, answering the Driver's whole result (its code and reason when not ready):
 * by `driver` when given, else by a fresh one as `occ-worker`.
 */
export async function provisionResult(api: TenantApi, id: NamespaceId, driver?: ComputeDriver) {
  if (driver !== undefined) return passAndRecord(api, id, driver);
  const own = workerDriver();
  try {
    return await passAndRecord(api, id, own.driver);
  } finally {
    own.client.close();
  }
}

async function passAndRecord(api: TenantApi, id: NamespaceId, driver: ComputeDriver) {
  const record = await getNamespace(api.db, id);
  if (record === undefined) throw new Error("no such namespace");
  const result = await driver.ensureNamespace({
    namespaceId: id,
    placement: placementOf(record),
    boundUid: record.kubernetesUid,
  });
  if (result.outcome === "ready") {
    await applyProvisioningOutcome(api.db, id, {
      to: "ready",
      binding: { namespace: result.namespaceName, uid: result.uid },
    });
  }
  return result;
}

/** Removes the API's tenant RoleBinding from `namespace` (as the administrator). */
export async function revokeApiRole(namespace: string): Promise<void> {
  const name = "openclaw-enterprise-tenant-api";
  const rb = await admin.get("RoleBinding", { name, namespace });
  await admin.delete("RoleBinding", { name, namespace }, { uid: rb.metadata.uid ?? "" });
}

/** A ready external Namespace (worker and API RoleBindings granted); returns its ID and name. */
export async function readyExternal(api: TenantApi): Promise<{ id: NamespaceId; ns: string }> {
  const prepared = await prepareExternal();
  const ns = prepared.metadata?.name ?? "";
  const id = await createTenant(api, uniqueName("ext"), ns);
  await bindTenantRole(ns, "occ-worker");
  await bindTenantRole(ns, "occ-api");
  const result = await provisionResult(api, id);
  expect(result.outcome, JSON.stringify(result)).toBe("ready");
  return { id, ns };
}

/** A ready managed Namespace: created by a first pass, then the operator grants the roles. */
export async function readyManaged(api: TenantApi): Promise<{ id: NamespaceId; ns: string }> {
  const id = await createTenant(api, uniqueName("managed"));
  expect(await provision(api, id)).toBe("pending");
  const ns = (
    await admin.list("Namespace", {
      labelSelector: `${LABELS.namespace}=${id}`,
    })
  )[0]?.metadata.name;
  if (ns === undefined) throw new Error("the managed namespace was not created");
  await bindTenantRole(ns, "occ-worker");
  await bindTenantRole(ns, "occ-api");
  const result = await provisionResult(api, id);
  expect(result.outcome, JSON.stringify(result)).toBe("ready");
  return { id, ns };
}

/** {@link startTenantApi} for one test file: started now, closed after the file's tests. */
export async function tenantApiForFile(
  opts: Parameters<typeof startTenantApi>[0] = {},
): Promise<TenantApi> {
  const api = await startTenantApi(opts);
  afterAll(() => api.close());
  return api;
}
