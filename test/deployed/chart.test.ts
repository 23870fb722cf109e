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
import pg from "pg";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  MARKER_VALUES,
  OWNED_OBJECT_NAMES,
  POD_SECURITY_LABELS,
  currentManagedName,
} from "../../src/domain/index.js";
import {
  CONFIGURATION_DATA_KEY,
  RESOURCE_ANNOTATIONS,
  RESOURCE_LABELS,
  configMapName,
} from "../../src/domain/tenant/resources.js";
import {
  documentedBlock,
  runBlock,
  shown,
  type DocBlock,
  type RunOptions,
} from "../harness/doc-blocks.js";
import { listenerPod, policyChains, probePod } from "../harness/node/network-policy.js";
import {
  apiClient,
  apiServiceUrl,
  bootstrapKey,
  chartNames,
  CHART_DIR,
  createDatabase,
  ctrOk,
  deploymentImages,
  describeRelease,
  helm,
  helmOk,
  nodeValues,
  prepareReleaseNamespace,
  readyPods,
  uninstallRelease,
  untilReady,
  valuesFile,
  type Api,
  type NamespaceView,
} from "../harness/node/chart.js";
import { eventually, kubectl, kubectlOk } from "../harness/node/kubectl.js";
import { Browser, startOidcProvider, type OidcProviderProcess } from "../harness/oidc-provider.js";
import { fetchTrusting, makeTestPki, startTlsFront } from "../harness/oidc-provider-tls.js";
import { operatorShell } from "../harness/node/operator.js";
import "../harness/node/environment.js";

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
/** The person who signs in through the provider (allowed by their e-mail domain). */
const PERSON = {
  login: "dana",
  password: "deployed sign-in password",
  sub: "sub-dana",
  email: "dana@example.com",
};
const why = () => describeRelease(env, ns);
const CLIENTS = "gateway-clients";
/** The operator's namespace for the external Namespace (the docs' `customer-support-prod`). */
const EXTERNAL = "deployed-external";
/** What the operator keeps in it besides OCC's objects, which must outlive everything. */
const OPERATORS_CONFIGMAP = "operator-settings";
/** The operator's grants (`occ namespaces grants`): the chart's tenant roles to its accounts. */
const GRANTED = [
  `openclaw-enterprise-tenant-api ${ns}/occ-api`,
  `openclaw-enterprise-tenant-worker ${ns}/occ-worker`,
];

interface K8sObject {
  metadata: {
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

async function getObject(args: readonly string[]): Promise<K8sObject> {
  return JSON.parse(await kubectlOk(env.kubeconfig, ["get", ...args, "-o", "json"])) as K8sObject;
}

/** A documented block run as the operator, the docs' names and `ns_…` filled in. */
function operatorRuns(block: DocBlock, namespaceId = "ns_…"): void {
  const results = runBlock(block, {
    ...operator,
    fill: { "customer-support-prod": EXTERNAL, "ns_…": namespaceId },
  });
  for (const r of results) expect(r.code, shown(r)).toBe(0);
}

/** Each RoleBinding in `namespace` as `<ClusterRole> <namespace>/<ServiceAccount>`, sorted. */
async function roleBindings(namespace: string): Promise<string[]> {
  const out = await kubectlOk(env.kubeconfig, [
    "-n",
    namespace,
    "get",
    "rolebindings",
    "-o",
    'jsonpath={range .items[*]}{.roleRef.name} {.subjects[*].namespace}/{.subjects[*].name}{"\\n"}{end}',
  ]);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .sort();
}

async function createManaged(name: string): Promise<{ id: string; namespace: string }> {
  const res = await api.call("POST", "/namespaces", { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as { data: NamespaceView }).data.id;
  return { id, namespace: currentManagedName(id) };
}

/** The kinds/names of the objects OCC owns in `namespace`, read back from the API server. */
async function ownedObjects(namespace: string): Promise<string[]> {
  const out = await kubectlOk(env.kubeconfig, [
    "-n",
    namespace,
    "get",
    "resourcequota,limitrange,networkpolicy",
    "-o",
    'jsonpath={range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}',
  ]);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .sort();
}

const expectedOwned = [
  `LimitRange/${OWNED_OBJECT_NAMES.limits}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.allowDns}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.allowGatewayIngress}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.defaultDeny}`,
  `ResourceQuota/${OWNED_OBJECT_NAMES.quota}`,
].sort();

beforeAll(async () => {
  const database = await createDatabase(env, "occ_chart");
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  await prepareReleaseNamespace(env, ns, database.urlForPods);
  // Sign-in: the provider on the node's address over https (pods reach it there), the API's
  // https front on loopback (only this process, the person's browser, opens it), one throwaway
  // CA for both, trusted by the browser and, through the chart, by the API.
  const signInSetup = Date.now();
  const pki = await makeTestPki([env.nodeAddress, "127.0.0.1"]);
  ca = pki.ca;
  front = await startTlsFront(pki, "127.0.0.1");
  const client = { client_id: "occ", client_secret: "occ-deployed-client-secret-0123456789" };
  idp = await startOidcProvider([
    {
      name: "idp",
      host: env.nodeAddress,
      tls: { cert: pki.cert, key: pki.key },
      accounts: [PERSON],
      clients: [{ ...client, redirect_uris: [`${front.url}/auth/oidc/callback`] }],
    },
  ]);
  const secret = (name: string, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: ns },
    stringData: data,
  });
  await kubectlOk(
    env.kubeconfig,
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        secret("occ-session", { "session-key": "deployed-session-key-".repeat(3) }),
        secret("occ-oidc-client", {
          "client-id": client.client_id,
          "client-secret": client.client_secret,
        }),
        secret("occ-oidc-ca", { "ca.crt": pki.ca }),
      ],
    }),
  );
  console.log(
    `[deployed] sign-in setup (CA, provider, Secrets) took ${Date.now() - signInSetup} ms`,
  );
  // A short resync keeps the worker looking at ready Namespaces during the upgrade.
  values = {
    ...nodeValues(env),
    worker: { queue: { resyncSeconds: 30 } },
    // Who may reach the Agent gateway pods (tenant NetworkPolicy allow-gateway-ingress).
    network: { gatewayClients: [{ namespace: CLIENTS, podLabels: { app: "gateway-client" } }] },
    auth: {
      baseUrl: front.url,
      secretName: "occ-session",
      // The break-glass principal: bootstrap makes it during the install (the upgrade below
      // names it); until then this ID names no one, which the API only warns about.
      recoveryUserId: "prn_recovery-before-bootstrap",
      oidc: {
        enabled: true,
        issuer: idp.issuers.idp,
        displayName: "Deployed test SSO",
        clientSecretName: "occ-oidc-client",
        caSecretName: "occ-oidc-ca",
        allowedDomains: ["example.com"],
        egressCidrs: [`${env.nodeAddress}/32`],
      },
    },
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
  let external: { id: string; uid: string } | undefined;
  let configuration: { id: string; values: Record<string, unknown> } | undefined;

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
    const key = await bootstrapKey(env, ns, names.init);
    const url = await apiServiceUrl(env, ns, names.api);
    front?.forwardTo(url);
    api = apiClient(url, key);
    operator = await operatorShell(env, { url, key });
    const ready = await fetch(`${await apiServiceUrl(env, ns, names.api)}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("every pod of the chart passes `restricted` Pod Security in its release namespace", async () => {
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
    expect(await ownedObjects(first.namespace)).toEqual(expectedOwned);
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
      const prepared = await getObject(["namespace", EXTERNAL]);
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
          const view = (
            (await api.call("GET", `/namespaces/${id}`)).body as { data?: NamespaceView }
          ).data;
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
      const bound = await getObject(["namespace", EXTERNAL]);
      expect(bound.metadata.uid).toBe(prepared.metadata.uid);
      expect(bound.metadata.labels?.[LABELS.namespace]).toBe(id);
      expect(bound.metadata.annotations?.[ANNOTATIONS.namespaceId]).toBe(id);
      expect(bound.metadata.annotations?.[ANNOTATIONS.lifecycle]).toBe(LIFECYCLE.external);
      for (const label of POD_SECURITY_LABELS)
        expect(bound.metadata.labels?.[label]).toBe(MARKER_VALUES.podSecurityLevel);
      expect(bound.metadata.labels?.[LABELS.managedBy]).toBeUndefined();
      expect(await ownedObjects(EXTERNAL)).toEqual(expectedOwned);
      expect(await roleBindings(EXTERNAL)).toEqual(GRANTED);
      const row = await db.query<{ status: string; kubernetes_uid: string }>(
        "SELECT status, kubernetes_uid FROM namespaces WHERE id = $1",
        [id],
      );
      expect(row.rows[0]).toEqual({ status: "ready", kubernetes_uid: prepared.metadata.uid });
      external = { id, uid: prepared.metadata.uid };
    },
  );

  it("a Configuration created through the API Service lands as a ConfigMap in the bound namespace", async () => {
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
    const cm = await getObject(["-n", EXTERNAL, "configmap", configMapName(created.id)]);
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
    configuration = { id: created.id, values };
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
    expect(await ownedObjects(second.namespace)).toEqual(expectedOwned);
  });

  it("tenant isolation by traffic: NetworkPolicies as rendered, enforced on the node", async () => {
    const second = currentManagedName(
      (
        await db.query<{ id: string }>("SELECT id FROM namespaces WHERE name = $1", [
          "deployed-after-kill",
        ])
      ).rows[0]?.id ?? "",
    );
    await kubectlOk(env.kubeconfig, ["create", "namespace", CLIENTS]);
    const broad = { [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress };
    const listeners = [
      // A cluster DNS pod as network.dns selects it (53 needs privileges: 5353 is also allowed).
      {
        name: "dns",
        namespace: "kube-system",
        labels: { "k8s-app": "kube-dns" },
        ports: [5353, 8053],
      },
      // An Agent gateway pod in the second tenant.
      {
        name: "gateway",
        namespace: second,
        labels: { ...broad, [LABELS.workloadRole]: MARKER_VALUES.workloadRoleGateway },
        ports: [18789, 8080],
      },
    ];
    for (const l of listeners) {
      await kubectlOk(
        env.kubeconfig,
        ["apply", "-f", "-"],
        JSON.stringify(listenerPod({ ...l, image: env.image })),
      );
    }
    const ip: Record<string, string> = {};
    for (const l of listeners) {
      await kubectlOk(env.kubeconfig, [
        "-n",
        l.namespace,
        "wait",
        "--for=condition=Ready",
        `pod/${l.name}`,
        "--timeout=120s",
      ]);
      ip[l.name] = await kubectlOk(env.kubeconfig, [
        "-n",
        l.namespace,
        "get",
        "pod",
        l.name,
        "-o",
        "jsonpath={.status.podIP}",
      ]);
    }
    const dns = ip.dns ?? "";
    const gw = ip.gateway ?? "";
    const probes = [
      // A broad-egress workload of the first tenant: DNS only.
      {
        name: "tenant-a-broad",
        namespace: first.namespace,
        labels: broad,
        targets: [`${dns}:5353`, `${dns}:8053`, `${gw}:18789`],
      },
      // A workload without the broad-egress profile: nothing, not even DNS.
      { name: "tenant-a-plain", namespace: first.namespace, labels: {}, targets: [`${dns}:5353`] },
      // The configured gateway client: the gateway port only.
      {
        name: "client",
        namespace: CLIENTS,
        labels: { app: "gateway-client" },
        targets: [`${gw}:18789`, `${gw}:8080`],
      },
      // Any other pod outside the tenant: nothing.
      { name: "stranger", namespace: CLIENTS, labels: {}, targets: [`${gw}:18789`] },
    ];
    for (const p of probes) {
      await kubectlOk(
        env.kubeconfig,
        ["apply", "-f", "-"],
        JSON.stringify(probePod({ ...p, image: env.image })),
      );
    }
    const seen: string[] = [];
    for (const p of probes) {
      await eventually(
        `probe ${p.name} done`,
        async () => {
          const phase = await kubectlOk(env.kubeconfig, [
            "-n",
            p.namespace,
            "get",
            "pod",
            p.name,
            "-o",
            "jsonpath={.status.phase}",
          ]);
          return phase === "Succeeded" || phase === "Failed" ? phase : undefined;
        },
        120_000,
        async () =>
          (await kubectl(env.kubeconfig, ["-n", p.namespace, "describe", "pod", p.name])).stdout +
          (await policyChains()),
      );
      const out = await kubectlOk(env.kubeconfig, ["-n", p.namespace, "logs", p.name]);
      for (const line of out.trim().split("\n"))
        seen.push(`${p.name} -> ${line.replace(dns, "dns").replace(gw, "gateway")}`);
    }
    expect(seen).toEqual([
      "tenant-a-broad -> dns:5353 open",
      "tenant-a-broad -> dns:8053 blocked",
      "tenant-a-broad -> gateway:18789 blocked",
      "tenant-a-plain -> dns:5353 blocked",
      "client -> gateway:18789 open",
      "client -> gateway:8080 blocked",
      "stranger -> gateway:18789 blocked",
    ]);
    for (const p of [...probes, ...listeners]) {
      await kubectl(env.kubeconfig, ["-n", p.namespace, "delete", "pod", p.name, "--wait=false"]);
    }
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
    const watched: string[] = [];
    const state = { watching: true };
    const watch = (async () => {
      while (state.watching) {
        const r = await db.query<{ status: string }>(
          "SELECT DISTINCT status FROM namespaces WHERE deleted_at IS NULL",
        );
        for (const s of r.rows) if (!watched.includes(s.status)) watched.push(s.status);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
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
    state.watching = false;
    await watch;
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
    await helmOk(env, ["uninstall", release, "-n", ns, "--wait", "--timeout", "120s"]);
    const left = await kubectlOk(env.kubeconfig, ["-n", ns, "get", "deploy,svc", "-o", "name"]);
    expect(left.trim()).toBe("");
    expect(await ownedObjects(first.namespace)).toEqual(expectedOwned);
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
    const kept = await getObject(["namespace", EXTERNAL]);
    expect(kept.metadata.uid).toBe(external?.uid);
    expect(kept.metadata.labels?.[LABELS.namespace]).toBe(external?.id);
    expect(kept.metadata.annotations?.[ANNOTATIONS.lifecycle]).toBe(LIFECYCLE.external);
    const operators = await getObject(["-n", EXTERNAL, "configmap", OPERATORS_CONFIGMAP]);
    expect(operators.data).toEqual({ owner: "operator" });
    expect(await roleBindings(EXTERNAL)).toEqual(GRANTED);
    expect(await ownedObjects(EXTERNAL)).toEqual(expectedOwned);
    const cm = await getObject([
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
  });
});
