/**
 * The chart on a real node, normal profile: `helm install --wait` of the image `npm run image`
 * built, with `auth.oidc` enabled against a real OpenID Provider (`oidc-provider`, https with a
 * throwaway CA the API trusts through `auth.oidc.caSecretName`), then what an operator does with
 * it — a person signing in through the API Service, a managed Namespace through it, an
 * external one on a namespace prepared and granted as docs/operations.md says, a Configuration
 * in it, one of the two worker pods killed, `helm upgrade` to another image, `helm uninstall` — each result
 * read back from the API server, the API and the database. The steps run in order on one
 * release (the chart's cluster-scoped objects allow one release per cluster).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type pg from "pg";
import { OWNED_OBJECT_NAMES, currentManagedName } from "../../src/domain/index.js";
import { runBlock, shown, type DocBlock, type RunOptions } from "../harness/doc-blocks.js";
import {
  apiServiceUrl,
  chartNames,
  CHART_DIR,
  ctrOk,
  deploymentImages,
  describeRelease,
  helm,
  nodeValues,
  readyPods,
  uninstallRelease,
  untilReady,
  valuesFile,
  type Api,
} from "../harness/node/chart.js";
import { eventually, kubectlOk } from "../harness/node/kubectl.js";
import { Browser, type OidcProviderProcess } from "../harness/oidc-provider.js";
import type { startTlsFront } from "../harness/oidc-provider-tls.js";
import { fetchTrusting } from "../harness/oidc-provider-tls.js";
import "../harness/node/environment.js";
import { PERSON, startSignIn } from "./chart-sign-in.js";
import {
  createNamespace,
  EXPECTED_OWNED,
  openReleaseDatabase,
  ownedObjects,
  reachRelease,
  watchStatuses,
} from "./readback.js";
import { trafficSeen } from "./tenant-traffic.js";
import {
  EXTERNAL,
  configurationInBoundNamespace,
  externalNamespaceReady,
  restrictedPodSecurity,
  uninstallLeavesTenants,
  type ChartContext,
  type CreatedConfiguration,
  type ExternalNamespace,
} from "./chart-steps.js";

const env = inject("deployed");
const release = "occ";
const ns = "openclaw-system";
const names = chartNames(release);
let db: pg.Client;
let api: Api;
let operator: RunOptions;
let values: Record<string, unknown>;
let idp: OidcProviderProcess | undefined;
/** The throwaway CA of the provider's and the front's certificates (the browser trusts it). */
let ca = "";
/** The API's https front (an Ingress's part): `auth.baseUrl`, where people open OCC. */
let front: Awaited<ReturnType<typeof startTlsFront>> | undefined;
const why = () => describeRelease(env, ns);
const CLIENTS = "gateway-clients";

/** The suite's release as the steps in chart-steps.ts reach it (once installed). */
const context = (): ChartContext => ({ env, release, ns, db, api, why, operatorRuns });

/** A managed Namespace through the API Service: its ID and its Kubernetes namespace. */
async function createManaged(name: string): Promise<{ id: string; namespace: string }> {
  const id = await createNamespace(api, { name });
  return { id, namespace: currentManagedName(id) };
}

/** A documented block run as the operator, the docs' names and `ns_…` filled in. */
function operatorRuns(block: DocBlock, namespaceId = "ns_…"): void {
  const results = runBlock(block, {
    ...operator,
    fill: { "customer-support-prod": EXTERNAL, "ns_…": namespaceId },
  });
  for (const r of results) expect(r.code, shown(r)).toBe(0);
}

beforeAll(async () => {
  db = await openReleaseDatabase(env, ns, "occ_chart");
  const signIn = await startSignIn(env, ns);
  ({ ca, front, idp } = signIn);
  values = {
    ...nodeValues(env),
    worker: { queue: { resyncSeconds: 30 } },
    // Who may reach the Agent gateway pods (tenant NetworkPolicy allow-gateway-ingress).
    network: { gatewayClients: [{ namespace: CLIENTS, podLabels: { app: "gateway-client" } }] },
    auth: signIn.auth,
  };
});

afterAll(async () => {
  await uninstallRelease(env, release, ns);
  await db.end();
  await Promise.allSettled([idp?.stop(), front?.stop()]);
});

describe("the chart on a real node (normal profile)", () => {
  let first: { id: string; namespace: string };
  /** The external Namespace: its ID and the prepared namespace's UID. */
  let external: ExternalNamespace | undefined;
  let configuration: CreatedConfiguration | undefined;

  it("helm install --wait: the init Job completes, api and worker are Ready", async () => {
    const started = Date.now();
    const install = await helm(env, [
      "install",
      release,
      CHART_DIR,
      "-n",
      ns,
      "-f",
      await valuesFile(env, values),
      "--wait",
      "--timeout",
      "240s",
    ]);
    expect(install.code, `${install.stderr}\n${await why()}`).toBe(0);
    console.log(`[deployed] helm install --wait took ${Date.now() - started} ms`);
    const job = await kubectlOk(env.kubeconfig, [
      "-n",
      ns,
      "get",
      "job",
      names.init,
      "-o",
      "jsonpath={.status.succeeded}",
    ]);
    expect(job).toBe("1");
    // The chart's default: two of each (docs/operations.md, "High availability").
    expect(await readyPods(env, ns, "api")).toHaveLength(2);
    expect(await readyPods(env, ns, "worker")).toHaveLength(2);
    const reached = await reachRelease(env, ns, names);
    ({ api, operator } = reached);
    front?.forwardTo(reached.url);
    const ready = await fetch(`${await apiServiceUrl(env, ns, names.api)}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("every pod of the chart passes `restricted` Pod Security in its release namespace", async () => {
    await restrictedPodSecurity(context());
  });

  it("a person signs in through the API Service with auth.oidc: the provider's pages, then whoami names them", async () => {
    const base = front?.url ?? "";
    const browser = new Browser(fetchTrusting(ca));
    const started = Date.now();
    const page = await browser.signIn(
      `${base}/auth/oidc/start?provider=oidc&redirect=${encodeURIComponent("/auth/whoami")}`,
      PERSON.login,
      PERSON.password,
    );
    console.log(`[deployed] OIDC sign-in took ${Date.now() - started} ms`);
    // Through the provider's own login page (pods reached it for discovery and the code).
    const reached = browser.visited.some((u) =>
      u.startsWith(`${idp?.issuers.idp ?? "?"}/interaction/`),
    );
    const back = page.url === `${base}/auth/whoami`;
    const trail =
      reached && back
        ? ""
        : `${browser.visited.join("\n")}\n${page.status} ${page.text}\n${await why()}`;
    expect(reached, trail).toBe(true);
    expect(back, trail).toBe(true);
    expect(page.status).toBe(200);
    // The session cookie read back: whoami again with it alone names the OIDC user.
    expect(browser.cookie(base, "occ_session")).toBeDefined();
    const who = await browser.request(`${base}/auth/whoami`);
    expect(who.status).toBe(200);
    const body = JSON.parse(who.text) as {
      data: { principal: { name: string; kind: string }; credential: { method: string } };
    };
    expect(body.data.principal).toMatchObject({ name: PERSON.email, kind: "user" });
    expect(body.data.credential.method).toBe("oidc");
    const identity = await db.query<{ email: string }>(
      "SELECT email FROM external_identities WHERE subject = $1",
      [PERSON.sub],
    );
    expect(identity.rows).toEqual([{ email: PERSON.email }]);
  });

  it("a managed Namespace created through the API Service becomes ready, its namespace read back", async () => {
    first = await createManaged("deployed-first");
    await untilReady(api, first.id, 120_000, why);
    const marker = await kubectlOk(env.kubeconfig, [
      "get",
      "namespace",
      first.namespace,
      "-o",
      "jsonpath={.metadata.labels.openclaw\\.dev/namespace}",
    ]);
    expect(marker).not.toBe("");
    expect(await ownedObjects(env, first.namespace)).toEqual(EXPECTED_OWNED);
    const deny = JSON.parse(
      await kubectlOk(env.kubeconfig, [
        "-n",
        first.namespace,
        "get",
        "networkpolicy",
        OWNED_OBJECT_NAMES.defaultDeny,
        "-o",
        "json",
      ]),
    ) as { spec: { podSelector: object; policyTypes: string[] } };
    expect(deny.spec.podSelector).toEqual({});
    expect([...deny.spec.policyTypes].sort()).toEqual(["Egress", "Ingress"]);
    const row = await db.query<{ status: string }>("SELECT status FROM namespaces WHERE id = $1", [
      first.id,
    ]);
    expect(row.rows[0]?.status).toBe("ready");
  });

  it(
    "an external Namespace on a namespace prepared and granted as docs/operations.md says becomes ready through the API Service",
    { timeout: 420_000 },
    async () => {
      external = await externalNamespaceReady(context());
    },
  );

  it("a Configuration created through the API Service lands as a ConfigMap in the bound namespace", async () => {
    configuration = await configurationInBoundNamespace(context(), external);
  });

  it("killing a worker pod: the other worker and a replacement carry on", async () => {
    const before = await readyPods(env, ns, "worker");
    expect(before).toHaveLength(2);
    const [old] = before;
    await kubectlOk(env.kubeconfig, [
      "-n",
      ns,
      "delete",
      "pod",
      old ?? "",
      "--grace-period=1",
      "--wait=true",
    ]);
    // Queued once the old pod is gone: only a live worker (the other replica or the old one's
    // replacement) can place it.
    const second = await createManaged("deployed-after-kill");
    const view = await untilReady(api, second.id, 180_000, why);
    expect(view.status).toBe("ready");
    const live = await eventually(
      "two worker pods Ready again, the killed one replaced",
      async () => {
        const pods = await readyPods(env, ns, "worker");
        return pods.length === 2 && !pods.includes(old ?? "") ? pods : undefined;
      },
      120_000,
      why,
    );
    // The pass that placed it ran in one of the live workers (each logs every finished pass).
    const logs = await Promise.all(
      live.map((pod) => kubectlOk(env.kubeconfig, ["-n", ns, "logs", pod])),
    );
    const passes = logs
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; subject?: string })
      .filter((l) => l.msg === "work pass finished" && l.subject === `namespace:${second.id}`);
    expect(
      passes.length,
      `${second.id} in ${live.join(", ")}:\n${logs.join("\n")}`,
    ).toBeGreaterThan(0);
    expect(await ownedObjects(env, second.namespace)).toEqual(EXPECTED_OWNED);
  });

  it("tenant isolation by traffic: NetworkPolicies as rendered, enforced on the node", async () => {
    const second = currentManagedName(
      (
        await db.query<{ id: string }>("SELECT id FROM namespaces WHERE name = $1", [
          "deployed-after-kill",
        ])
      ).rows[0]?.id ?? "",
    );
    expect(await trafficSeen(env, { first: first.namespace, second, clients: CLIENTS })).toEqual([
      "tenant-a-broad -> dns:5353 open",
      "tenant-a-broad -> dns:8053 blocked",
      "tenant-a-broad -> gateway:18789 blocked",
      "tenant-a-plain -> dns:5353 blocked",
      "client -> gateway:18789 open",
      "client -> gateway:8080 blocked",
      "stranger -> gateway:18789 blocked",
    ]);
  });

  it("helm upgrade to a new image and values rolls out, no Namespace leaves ready", async () => {
    const [repository, tag] = env.image.split(":");
    const next = `${tag ?? ""}-next`;
    await ctrOk(env, [
      "images",
      "tag",
      `docker.io/library/${repository ?? ""}:${tag ?? ""}`,
      `docker.io/library/${repository ?? ""}:${next}`,
    ]);
    const stopWatch = watchStatuses(db);
    const admin = await db.query<{ principal_id: string }>(
      "SELECT principal_id FROM api_keys ORDER BY created_at LIMIT 1",
    );
    const upgraded = {
      ...values,
      ...nodeValues(env, next),
      worker: { queue: { resyncSeconds: 20 } },
      // The recovery principal now that bootstrap made it.
      auth: { ...(values.auth as object), recoveryUserId: admin.rows[0]?.principal_id },
    };
    const up = await helm(env, [
      "upgrade",
      release,
      CHART_DIR,
      "-n",
      ns,
      "-f",
      await valuesFile(env, upgraded),
      "--wait",
      "--timeout",
      "240s",
    ]);
    const watched = await stopWatch();
    expect(up.code, `${up.stderr}\n${await why()}`).toBe(0);
    expect(await deploymentImages(env, ns)).toEqual([
      `${repository ?? ""}:${next} 2/2`,
      `${repository ?? ""}:${next} 2/2`,
    ]);
    const config = await kubectlOk(env.kubeconfig, [
      "-n",
      ns,
      "get",
      "configmap",
      names.config,
      "-o",
      "jsonpath={.data}",
    ]);
    expect(config).toMatch(/resyncSeconds: 20/);
    expect(watched).toEqual(["ready"]);
    // The new API pod is Ready, but the Service path to it converges a little later (kube-proxy's
    // endpoints, kube-router's policy sets for the new pod's address): as a client would, wait
    // until the API answers through its Service before the next request.
    await eventually(
      "the upgraded API answers through its Service",
      async () => {
        const r = await api.call("GET", "/readyz").catch(() => undefined);
        return r?.status === 200 ? true : undefined;
      },
      90_000,
    );
    // The upgraded worker still places work.
    const third = await createManaged("deployed-after-upgrade");
    await untilReady(api, third.id, 120_000, why);
  });

  it("helm uninstall leaves the tenant namespaces, their objects and the database", async () => {
    await uninstallLeavesTenants(context(), { first, external, configuration });
  });
});
