/**
 * The longer steps of the chart suite (test/deployed/chart.test.ts), in the order it runs them
 * on its one release: Pod Security of its pods, an external Namespace on an operator-prepared namespace, a
 * Configuration in it, and what `helm uninstall` leaves. Each asserts what it reads back.
 */
import type pg from "pg";
import { expect } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  MARKER_VALUES,
  POD_SECURITY_LABELS,
} from "../../src/domain/index.js";
import {
  CONFIGURATION_DATA_KEY,
  RESOURCE_ANNOTATIONS,
  RESOURCE_LABELS,
  configMapName,
} from "../../src/domain/tenant/resources.js";
import { documentedBlock, type DocBlock } from "../harness/doc-blocks.js";
import { helmOk, untilReady, type Api, type NamespaceView } from "../harness/node/chart.js";
import { eventually, kubectl, kubectlOk } from "../harness/node/kubectl.js";
import type { DeployedEnvironment } from "../harness/node/environment.js";
import { EXPECTED_OWNED, getObject, ownedObjects, roleBindings } from "./readback.js";

/** The operator's namespace for the external Namespace (the docs' `customer-support-prod`). */
export const EXTERNAL = "deployed-external";
/** What the operator keeps in it besides OCC's objects, which must outlive everything. */
const OPERATORS_CONFIGMAP = "operator-settings";

/** The chart suite's release and what it reaches it with. */
export interface ChartContext {
  env: DeployedEnvironment;
  release: string;
  ns: string;
  db: pg.Client;
  api: Api;
  why: () => Promise<string>;
  /** A documented block run as the operator, the docs' names and `ns_…` filled in. */
  operatorRuns: (block: DocBlock, namespaceId?: string) => void;
}

/** The external Namespace: its ID and the prepared namespace's UID. */
export interface ExternalNamespace {
  id: string;
  uid: string;
}

/** A Configuration created in the external Namespace and the values it holds. */
export interface CreatedConfiguration {
  id: string;
  values: Record<string, unknown>;
}

/** The operator's grants (`occ namespaces grants`): the chart's tenant roles to its accounts. */
function granted(ns: string): string[] {
  return [
    `openclaw-enterprise-tenant-api ${ns}/occ-api`,
    `openclaw-enterprise-tenant-worker ${ns}/occ-worker`,
  ];
}

/** Every pod of the release passes `restricted` Pod Security in its namespace. */
export async function restrictedPodSecurity(c: ChartContext): Promise<void> {
  const { env, ns } = c;
  // The namespace enforces restricted: the pods above were admitted under it. The server's own
  // check of the running pods against the level (a dry-run relabel) warns about none.
  await kubectlOk(env.kubeconfig, [
    "label",
    "--overwrite",
    "namespace",
    ns,
    "pod-security.kubernetes.io/enforce=baseline",
  ]);
  const check = await kubectl(env.kubeconfig, [
    "label",
    "--overwrite",
    "--dry-run=server",
    "namespace",
    ns,
    "pod-security.kubernetes.io/enforce=restricted",
  ]);
  await kubectlOk(env.kubeconfig, [
    "label",
    "--overwrite",
    "namespace",
    ns,
    "pod-security.kubernetes.io/enforce=restricted",
  ]);
  expect(check.code).toBe(0);
  expect(check.stderr).not.toMatch(/violate|Warning/i);
  const pods = await kubectlOk(env.kubeconfig, [
    "-n",
    ns,
    "get",
    "pods",
    "-o",
    'jsonpath={range .items[*]}{.metadata.labels.app\\.kubernetes\\.io/component} {.status.phase} {.spec.securityContext.runAsNonRoot} {.spec.securityContext.seccompProfile.type}{"\\n"}{end}',
  ]);
  const lines = pods
    .split("\n")
    .filter((l) => l !== "")
    .sort();
  // Two API and two worker pods: the chart's default replicas (docs/operations.md, HA).
  expect(lines).toEqual([
    "api Running true RuntimeDefault",
    "api Running true RuntimeDefault",
    "init Succeeded true RuntimeDefault",
    "worker Running true RuntimeDefault",
    "worker Running true RuntimeDefault",
  ]);
}

/** docs/operations.md's external namespace, prepared, granted and bound through the API. */
export async function externalNamespaceReady(c: ChartContext): Promise<ExternalNamespace> {
  const { env, ns, db, api, why, operatorRuns } = c;
  // The operator prepares the namespace (docs: lifecycle annotation, Pod Security labels)
  // and keeps something of their own in it.
  operatorRuns(documentedBlock("external-prepare"));
  await kubectlOk(env.kubeconfig, [
    "-n",
    EXTERNAL,
    "create",
    "configmap",
    OPERATORS_CONFIGMAP,
    "--from-literal=owner=operator",
  ]);
  const prepared = await getObject(env, ["namespace", EXTERNAL]);
  const res = await api.call("POST", "/namespaces", {
    name: "deployed-external",
    existingNamespace: EXTERNAL,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as { data: NamespaceView }).data.id;
  // The chart grants the worker nothing inside an external namespace: it waits for the
  // operator's RoleBindings.
  const pending = await eventually(
    `${id} waiting for its RoleBindings`,
    async () => {
      const view = ((await api.call("GET", `/namespaces/${id}`)).body as { data?: NamespaceView })
        .data;
      return view?.statusReason?.code === "KUBERNETES_PERMISSION_PENDING" ? view : undefined;
    },
    120_000,
    why,
  );
  expect(pending.status).toBe("provisioning");
  // `occ namespaces grants ns_… | kubectl apply -f -`, then `occ namespaces wait`, through
  // the API Service.
  operatorRuns(documentedBlock("grants-apply"), id);
  const view = await untilReady(api, id, 120_000, why);
  expect(view.placement).toMatchObject({
    mode: "external",
    kubernetesNamespace: EXTERNAL,
    uid: prepared.metadata.uid,
  });
  // Read back from the API server: the same namespace, bound, the operator's keys kept.
  const bound = await getObject(env, ["namespace", EXTERNAL]);
  expect(bound.metadata.uid).toBe(prepared.metadata.uid);
  expect(bound.metadata.labels?.[LABELS.namespace]).toBe(id);
  expect(bound.metadata.annotations?.[ANNOTATIONS.namespaceId]).toBe(id);
  expect(bound.metadata.annotations?.[ANNOTATIONS.lifecycle]).toBe(LIFECYCLE.external);
  for (const label of POD_SECURITY_LABELS)
    expect(bound.metadata.labels?.[label]).toBe(MARKER_VALUES.podSecurityLevel);
  expect(bound.metadata.labels?.[LABELS.managedBy]).toBeUndefined();
  expect(await ownedObjects(env, EXTERNAL)).toEqual(EXPECTED_OWNED);
  expect(await roleBindings(env, EXTERNAL)).toEqual(granted(ns));
  const row = await db.query<{ status: string; kubernetes_uid: string }>(
    "SELECT status, kubernetes_uid FROM namespaces WHERE id = $1",
    [id],
  );
  expect(row.rows[0]).toEqual({ status: "ready", kubernetes_uid: prepared.metadata.uid });
  return { id, uid: prepared.metadata.uid };
}

/** A Configuration through the API Service: a ConfigMap in the bound namespace, read back. */
export async function configurationInBoundNamespace(
  c: ChartContext,
  external: ExternalNamespace | undefined,
): Promise<CreatedConfiguration> {
  const { env, api } = c;
  expect(external, "the external Namespace is ready").toBeDefined();
  const id = external?.id ?? "";
  const values = { model: "deployed-model", tools: ["search"], limits: { turns: 12 } };
  const res = await api.call("POST", `/namespaces/${id}/configurations`, {
    kind: "agent",
    values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const created = (res.body as { data: { id: string; generation: number } }).data;
  expect(created.generation).toBe(1);
  const cm = await getObject(env, ["-n", EXTERNAL, "configmap", configMapName(created.id)]);
  expect(cm.metadata.labels).toMatchObject({
    [LABELS.managedBy]: MARKER_VALUES.managedBy,
    [LABELS.namespace]: id,
    [RESOURCE_LABELS.configuration]: created.id,
    [RESOURCE_LABELS.configurationKind]: "agent",
    [RESOURCE_LABELS.generation]: "1",
  });
  expect(cm.metadata.annotations).toMatchObject({
    [ANNOTATIONS.namespaceId]: id,
    [RESOURCE_ANNOTATIONS.configurationId]: created.id,
    [RESOURCE_ANNOTATIONS.generation]: "1",
  });
  expect(JSON.parse(cm.data?.[CONFIGURATION_DATA_KEY] ?? "null")).toEqual(values);
  // Read back through the API, which verifies the ConfigMap against its metadata.
  const read = await api.call("GET", `/namespaces/${id}/configurations/${created.id}`);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect((read.body as { data: { values: unknown } }).data.values).toEqual(values);
  return { id: created.id, values };
}

/** `helm uninstall`: the release goes; tenants, their objects and the database stay. */
export async function uninstallLeavesTenants(
  c: ChartContext,
  made: {
    first: { namespace: string };
    external: ExternalNamespace | undefined;
    configuration: CreatedConfiguration | undefined;
  },
): Promise<void> {
  const { env, release, ns, db } = c;
  const { first, external, configuration } = made;
  await helmOk(env, ["uninstall", release, "-n", ns, "--wait", "--timeout", "120s"]);
  const left = await kubectlOk(env.kubeconfig, ["-n", ns, "get", "deploy,svc", "-o", "name"]);
  expect(left.trim()).toBe("");
  expect(await ownedObjects(env, first.namespace)).toEqual(EXPECTED_OWNED);
  const bindings = await kubectlOk(env.kubeconfig, [
    "-n",
    first.namespace,
    "get",
    "rolebindings",
    "-o",
    "name",
  ]);
  expect(bindings).toMatch(/openclaw-enterprise-tenant-worker/);
  const cluster = await kubectl(env.kubeconfig, [
    "get",
    "clusterrole/openclaw-enterprise-worker-namespaces",
    "validatingadmissionpolicy/openclaw-enterprise-namespaces",
  ]);
  expect(cluster.stderr).toMatch(/NotFound/);
  expect(cluster.stdout).toBe("");
  // Bootstrap's default Namespace and the four above, all still ready.
  const rows = await db.query<{ status: string }>(
    "SELECT status FROM namespaces WHERE deleted_at IS NULL",
  );
  expect(rows.rows.map((r) => r.status)).toEqual(["ready", "ready", "ready", "ready", "ready"]);
  // The external namespace is the operator's: never deleted, its keys, the operator's
  // objects, the tenant's objects and the Configuration's ConfigMap all stay.
  expect(external, "the external Namespace was ready").toBeDefined();
  expect(configuration, "the Configuration was created").toBeDefined();
  const kept = await getObject(env, ["namespace", EXTERNAL]);
  expect(kept.metadata.uid).toBe(external?.uid);
  expect(kept.metadata.labels?.[LABELS.namespace]).toBe(external?.id);
  expect(kept.metadata.annotations?.[ANNOTATIONS.lifecycle]).toBe(LIFECYCLE.external);
  const operators = await getObject(env, ["-n", EXTERNAL, "configmap", OPERATORS_CONFIGMAP]);
  expect(operators.data).toEqual({ owner: "operator" });
  expect(await roleBindings(env, EXTERNAL)).toEqual(granted(ns));
  expect(await ownedObjects(env, EXTERNAL)).toEqual(EXPECTED_OWNED);
  const cm = await getObject(env, [
    "-n",
    EXTERNAL,
    "configmap",
    configMapName(configuration?.id ?? ""),
  ]);
  expect(cm.metadata.labels?.[RESOURCE_LABELS.configuration]).toBe(configuration?.id);
  expect(JSON.parse(cm.data?.[CONFIGURATION_DATA_KEY] ?? "null")).toEqual(configuration?.values);
  // The init Job's hook objects stay; the chart README's command removes them.
  const hooks = `app.kubernetes.io/component=init,app.kubernetes.io/instance=${release}`;
  expect(
    await kubectlOk(env.kubeconfig, ["-n", ns, "get", "job", "-l", hooks, "-o", "name"]),
  ).toMatch(/job/);
  await kubectlOk(env.kubeconfig, [
    "-n",
    ns,
    "delete",
    "job,configmap,networkpolicy,serviceaccount",
    "-l",
    hooks,
  ]);
  expect(
    (
      await kubectlOk(env.kubeconfig, [
        "-n",
        ns,
        "get",
        "job,configmap,networkpolicy",
        "-l",
        hooks,
        "-o",
        "name",
      ])
    ).trim(),
  ).toBe("");
}
