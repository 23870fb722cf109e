/**
 * The preprovisioned profile's identities on the real cluster. The static `occ-worker` /
 * `occ-api` users hold broader chart roles granted by other tests, so every case gets FRESH
 * identities: a ServiceAccount with a token from the TokenRequest API, a kubeconfig for it,
 * and only what the profile grants — `get` on exactly one namespace (the cluster roles the
 * chart renders in the preprovisioned profile) plus the tenant roles of that same rendering
 * (the OpenShell one read-only), which the operator binds inside it. A namespace `list` by
 * such an identity is a 403, so a test that passes proves none is made; a write by the
 * OpenShell hook would be a 403 too.
 */
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inject } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { kubeconfigYaml } from "../../src/devcluster/kubeconfig.js";
import {
  createObjectClient,
  isKubeError,
  loadKubeConfig,
  type ObjectClient,
} from "../../src/drivers/kubernetes/client/index.js";
import {
  clusterRoleBinding,
  createMissing,
  type RbacObject,
  type RbacSubject,
} from "../../src/drivers/kubernetes/rbac-objects.js";
import type { PolicyRule } from "../../src/drivers/kubernetes/rbac-rules.js";
import { uniqueName } from "./kube.js";
import {
  chartTenantClusterRoles,
  ensureChartRoles,
  preprovisionedChartClusterRoles,
} from "./rbac.js";

/** Where the fresh ServiceAccounts live. */
const IDENTITY_NAMESPACE = "occ-test-identities";

/** A fresh identity: its RBAC subject and a kubeconfig file authenticating as it. */
export interface FreshIdentity {
  readonly subject: RbacSubject;
  readonly kubeconfig: string;
}

let adminClient: ObjectClient | undefined;
/** The cluster administrator (shared within a test file). */
export function admin(): ObjectClient {
  adminClient ??= createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
  return adminClient;
}

async function ensureIdentityNamespace(): Promise<void> {
  try {
    await admin().create("Namespace", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: IDENTITY_NAMESPACE },
    });
  } catch (err) {
    if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
  }
}

/** A new ServiceAccount and a kubeconfig with a TokenRequest token for it. */
export async function freshIdentity(prefix: string): Promise<FreshIdentity> {
  await ensureIdentityNamespace();
  const name = uniqueName(prefix);
  await admin().create("ServiceAccount", {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace: IDENTITY_NAMESPACE },
  });
  const env = inject("env");
  const res = await fetchTokenRequest(name);
  const file = join(env.runDir, `${name}.kubeconfig`);
  await writeFile(
    file,
    kubeconfigYaml({ server: env.server, caPem: env.caPem, user: name, token: res }),
    { mode: 0o600 },
  );
  return {
    subject: { kind: "ServiceAccount", name, namespace: IDENTITY_NAMESPACE },
    kubeconfig: file,
  };
}

/** `POST …/serviceaccounts/<name>/token` as the administrator, through kubectl's raw mode. */
async function fetchTokenRequest(name: string): Promise<string> {
  const body = JSON.stringify({
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  const out = kubectl(
    "admin",
    [
      "create",
      "--raw",
      `/api/v1/namespaces/${IDENTITY_NAMESPACE}/serviceaccounts/${name}/token`,
      "-f",
      "-",
    ],
    body,
  );
  const parsed = JSON.parse(out) as { status?: { token?: string } };
  const token = parsed.status?.token;
  if (token === undefined) throw new Error(`TokenRequest for ${name} returned no token`);
  return Promise.resolve(token);
}

/** Runs `.tools/bin/kubectl` as a static identity or with a kubeconfig file; throws on failure. */
export function kubectl(
  who: "admin" | "operator" | { readonly kubeconfig: string },
  args: readonly string[],
  input?: string,
): string {
  const kubeconfig = typeof who === "string" ? inject("env").kubeconfigs[who] : who.kubeconfig;
  const res = spawnSync(".tools/bin/kubectl", ["--kubeconfig", kubeconfig, ...args], {
    encoding: "utf8",
    input,
    timeout: 60_000,
  });
  if (res.status !== 0) {
    throw new Error(`kubectl ${args.join(" ")} exited ${res.status}: ${res.stderr}`);
  }
  return res.stdout;
}

/** The worker and API identities of one preprovisioned namespace, with exactly its grants. */
export interface PreprovisionedIdentities {
  readonly worker: FreshIdentity;
  readonly api: FreshIdentity;
  /**
   * The chart's tenant ClusterRole names (what `occ preprovisioned render` binds) → the names
   * under which this case created the preprovisioned chart's tenant roles.
   */
  readonly tenantRoles: Readonly<Record<string, string>>;
}

/**
 * Fresh worker and API identities that may `get` only the bound namespace — with the
 * ClusterRoles the chart renders for `namespaceId` in the preprovisioned profile (renamed
 * uniquely per case), and the tenant ClusterRoles of the preprovisioned rendering, unbound:
 * the operator's rendered RoleBindings bind them inside the namespace (after
 * {@link retargetTenantRoleRefs}).
 *
 * The tenant roles are renamed per case too (`<chart name>-<worker identity>`, rules
 * untouched): their chart names exist in the shared test cluster already with the NORMAL
 * profile's rules (tenant-openshell with write verbs, `escalate` and `bind`), which
 * `ensureChartRoles` rightly refuses to treat as the same role — and binding those would prove
 * nothing about the preprovisioned role.
 */
export async function preprovisionedIdentities(
  namespaceId: string,
): Promise<PreprovisionedIdentities> {
  const worker = await freshIdentity("pp-worker");
  const api = await freshIdentity("pp-api");
  const names = { worker: `${worker.subject.name}-ns`, api: `${api.subject.name}-ns` };
  const tenant = (await chartTenantClusterRoles("preprovisioned")).map((role) => ({
    chartName: role.metadata.name,
    role: { ...role, metadata: { name: `${role.metadata.name}-${worker.subject.name}` } },
  }));
  await ensureChartRoles([
    ...tenant.map((t) => t.role),
    ...(await preprovisionedChartClusterRoles({ namespaceId }, names)),
  ]);
  await createMissing(admin(), [
    clusterRoleBinding(names.worker, names.worker, worker.subject),
    clusterRoleBinding(names.api, names.api, api.subject),
  ]);
  const tenantRoles = Object.fromEntries(tenant.map((t) => [t.chartName, t.role.metadata.name]));
  return { worker, api, tenantRoles };
}

interface RenderedDocument extends Readonly<Record<string, unknown>> {
  readonly kind?: unknown;
  readonly roleRef?: { readonly kind?: unknown; readonly name?: unknown };
}

/** The non-empty documents of a multi-document YAML stream. */
function documents(yaml: string): RenderedDocument[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as RenderedDocument | null)
    .filter((o): o is RenderedDocument => o !== null);
}

/**
 * The chart's tenant ClusterRole names that the RoleBindings of `occ preprovisioned render`
 * output reference, in order.
 */
export function renderedTenantRoleRefs(yaml: string): string[] {
  return documents(yaml)
    .filter((o) => o.kind === "RoleBinding" && o.roleRef?.kind === "ClusterRole")
    .map((o) => String(o.roleRef?.name));
}

/**
 * `occ preprovisioned render` output with each RoleBinding's ClusterRole `roleRef.name` mapped
 * from the chart's tenant role name to this case's copy ({@link PreprovisionedIdentities}
 * `tenantRoles`); every other field is left exactly as rendered. Throws on a ClusterRole
 * reference it has no copy for, so no binding can silently fall back to a normal-profile role.
 */
export function retargetTenantRoleRefs(yaml: string, identities: PreprovisionedIdentities): string {
  return documents(yaml)
    .map((o) => {
      if (o.kind !== "RoleBinding" || o.roleRef?.kind !== "ClusterRole") return stringify(o);
      const from = String(o.roleRef.name);
      const to = identities.tenantRoles[from];
      if (to === undefined) throw new Error(`no preprovisioned copy of ClusterRole ${from}`);
      return stringify({ ...o, roleRef: { ...o.roleRef, name: to } });
    })
    .join("---\n");
}

/**
 * What the `operator` identity needs to prepare namespaces: create and edit namespaces, the
 * workspace resource kinds, and bind the tenant roles (`bind`, `escalate` — RBAC refuses to
 * let anyone grant what they do not hold otherwise).
 */
export async function grantOperator(): Promise<void> {
  const role = "occ-test-preprovisioned-operator";
  const all = ["get", "list", "watch", "create", "update", "patch", "delete"];
  const operatorRole: RbacObject & { readonly rules: readonly PolicyRule[] } = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: role },
    rules: [
      { apiGroups: [""], resources: ["namespaces", "serviceaccounts"], verbs: all },
      { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: all },
      {
        apiGroups: ["rbac.authorization.k8s.io"],
        resources: ["roles", "rolebindings"],
        verbs: all,
      },
      {
        apiGroups: ["rbac.authorization.k8s.io"],
        resources: ["clusterroles", "roles"],
        verbs: ["bind", "escalate"],
      },
    ],
  };
  await createMissing(admin(), [
    operatorRole,
    clusterRoleBinding(role, role, { kind: "User", name: "operator" }),
  ]);
}
