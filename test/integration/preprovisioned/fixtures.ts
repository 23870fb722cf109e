import { randomBytes } from "node:crypto";
import pino from "pino";
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { inject } from "vitest";
import { insertNamespace } from "../../../src/store/namespaces.js";
import {
  validateInstallationConfig,
  type InstallationConfig,
} from "../../../src/config/installation-config.js";
import {
  currentManagedName,
  isPreprovisionedNamespaceId,
  type NamespaceId,
  type PreprovisionedBinding,
} from "../../../src/domain/index.js";
import type { NamespacePassInput } from "../../../src/drivers/compute.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import type { NamespaceHook } from "../../../src/drivers/compute.js";
import { createDriverSet } from "../../../src/drivers/factory.js";
import type { OpenShellGateway } from "../../../src/drivers/openshell/gateway-client.js";
import { driverProfileOf } from "../../../src/drivers/profile.js";
import { renderPreprovisionedYaml } from "../../../src/drivers/preprovisioned-render.js";
import { startWorkerProcess } from "../../../src/main/processes.js";
import type { Db } from "../../../src/store/db.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { namespaceQueueConfig } from "../../../src/work/namespace-work.js";
import { workQueuePolicy } from "../../../src/work/queues.js";
import { openMigratedPglite } from "../../harness/pglite.js";
import { createBootstrappedDatabase, type BootstrappedDatabase } from "../../harness/db.js";
import { runOcc, type OccResult } from "../../harness/occ.js";
import { ROUTING } from "../compute/fixtures.js";
import {
  admin,
  grantOperator,
  kubectl,
  preprovisionedIdentities,
  retargetTenantRoleRefs,
  type PreprovisionedIdentities,
} from "../../harness/preprovisioned.js";

export const OPENSHELL_LABEL = "openshell.nvidia.com/workspace-mode";

/** An operator's NetworkPolicy `name` over OpenShell's sandbox pods, with these types and rules. */
export function sandboxPolicy<Rules extends object>(
  name: string,
  policyTypes: string[],
  rules: Rules,
) {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name },
    spec: {
      podSelector: { matchLabels: { "openshell.nvidia.com/sandbox": "true" } },
      policyTypes,
      ...rules,
    },
  };
}

/** The declared operator NetworkPolicy: written the way an operator would (no protocol). */
export const DECLARED_POLICY = sandboxPolicy("openshell-sandbox-egress", ["Egress"], {
  egress: [
    {
      to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "openshell" } } }],
      ports: [{ port: 8080 }],
    },
  ],
});

/** A preprovisioned-profile Installation configuration (every §2 prerequisite met). */
export function profileConfig(
  overrides: Record<string, unknown> = {},
  endpoint = "127.0.0.1:1",
): InstallationConfig {
  return validateInstallationConfig(profileDocument(overrides, endpoint), "test");
}

/** The configuration document of {@link profileConfig}, as a file would hold it. */
export function profileDocument(
  overrides: Record<string, unknown> = {},
  endpoint = "127.0.0.1:1",
): Record<string, unknown> {
  return {
    drivers: { sandbox: "openshell" },
    network: {
      gatewayRouting: ROUTING,
      egressAuthority: {
        namespace: "openclaw-system",
        podLabels: { app: "credential-proxy" },
        port: 3128,
      },
    },
    openshell: {
      endpoint,
      gateway: {
        workspaceMode: "operator",
        operatorNamespaceLabels: { [OPENSHELL_LABEL]: "operator" },
        operatorWorkspaceResources: [
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "openshell-sandbox" } },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "Role",
            metadata: { name: "openshell-sandbox" },
            rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
          },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "RoleBinding",
            metadata: { name: "openshell-sandbox" },
            roleRef: {
              apiGroup: "rbac.authorization.k8s.io",
              kind: "Role",
              name: "openshell-sandbox",
            },
            subjects: [{ kind: "ServiceAccount", name: "openshell-sandbox" }],
          },
        ],
        networkPolicyResources: [DECLARED_POLICY],
      },
    },
    ...overrides,
  };
}

/** A Namespace ID under the binding's wider pattern, unique per call. */
export function newBoundId(): NamespaceId {
  const id = `ns_pp-${randomBytes(5).toString("hex")}`;
  if (!isPreprovisionedNamespaceId(id)) throw new Error("bad test id");
  return id;
}

/** One prepared preprovisioned namespace and the identities that may use it. */
export interface Prepared {
  readonly id: NamespaceId;
  readonly name: string;
  readonly binding: PreprovisionedBinding;
  readonly identities: PreprovisionedIdentities;
  readonly config: InstallationConfig;
  readonly worker: ObjectClient;
  readonly api: ObjectClient;
}

/**
 * What the operator does: `occ preprovisioned render` (here its function; the CLI test runs
 * the real command) applied by the `operator` identity with kubectl, then the binding of the
 * created namespace's UID. The rendered RoleBindings are pointed at this case's copies of the
 * preprovisioned chart's tenant roles (`retargetTenantRoleRefs`: only `roleRef.name` changes),
 * since the chart names carry the normal profile's rules in the shared test cluster.
 */
export async function prepare(config = profileConfig(), id = newBoundId()): Promise<Prepared> {
  await grantOperator();
  const name = currentManagedName(id);
  const identities = await preprovisionedIdentities(id);
  const yaml = renderPreprovisionedYaml({
    namespaceId: id,
    config,
    worker: identities.worker.subject,
    api: identities.api.subject,
  });
  kubectl("operator", ["apply", "-f", "-"], retargetTenantRoleRefs(yaml, identities));
  const ns = await admin().get("Namespace", { name });
  const uid = ns.metadata.uid ?? "";
  return {
    id,
    name,
    binding: { namespaceId: id, uid },
    identities,
    config,
    worker: createObjectClient(loadKubeConfig(identities.worker.kubeconfig)),
    api: createObjectClient(loadKubeConfig(identities.api.kubeconfig)),
  };
}

/**
 * A fresh bootstrapped database (its work queue under the profile's policy) whose `default`
 * Namespace the operator then {@link prepare}s and binds, as the seed's procedure does.
 */
export async function bootstrapAndPrepare(
  config: InstallationConfig,
): Promise<BootstrappedDatabase & { readonly id: NamespaceId; readonly p: Prepared }> {
  const database = await createBootstrappedDatabase({
    queue: namespaceQueueConfig({ policy: workQueuePolicy(config) }),
  });
  const id = database.defaultNamespaceId;
  return { ...database, id, p: await prepare(config, id) };
}

/** The Compute Driver of the profile, as the worker identity (with OpenShell's hook: `sandbox`). */
export function driverFor(
  p: Prepared,
  hooks: readonly NamespaceHook[] = [],
  binding = p.binding,
  sandbox: OpenShellGateway | null = null,
) {
  return createDriverSet({
    config: p.config,
    profile: driverProfileOf(p.config, binding),
    client: p.worker,
    hooks,
    sandbox,
  }).compute;
}

export function passInput(
  id: NamespaceId,
  placement: NamespacePassInput["placement"] = { mode: "managed" },
): NamespacePassInput {
  return { namespaceId: id, placement, boundUid: null };
}

/**
 * A fresh embedded database folder with the schema applied and a platform Namespace for each
 * of `ids` (the binding must name one: the processes refuse an unknown ID), for a spawned
 * `occ api|worker`: the processes refuse an unmigrated database before their Kubernetes
 * startup checks ("run `occ migrate`").
 */
export async function migratedPglite(...ids: readonly NamespaceId[]): Promise<string> {
  const dir = await mkdtemp(join(inject("env").runDir, "pglite-"));
  const db = await openMigratedPglite(dir);
  try {
    for (const [i, id] of ids.entries()) {
      const name = i === 0 ? "default" : `tenant-${i}`;
      await insertNamespace(db, { id, name, placement: { mode: "managed" } });
    }
  } finally {
    await db.close();
  }
  return dir;
}

/**
 * Runs the real `occ` with `env` added and no binding or database URL inherited from the test
 * process: each test states the ones it means.
 */
export function occ(args: readonly string[], env: Record<string, string> = {}): OccResult {
  return runOcc(args, {
    env: { OCC_PREPROVISIONED_NAMESPACE: "", OCC_DATABASE_URL: "", ...env },
    timeoutMs: 90_000,
  });
}

/**
 * The worker process (`startWorkerProcess`, what `occ worker` runs) on `db` as the prepared
 * worker identity, configured by {@link profileDocument}(`overrides`, `endpoint`) and started
 * with `binding` as its OCC_PREPROVISIONED_NAMESPACE, as helm would set it.
 */
export function startBoundWorker(
  db: Db,
  p: Prepared,
  opts: {
    readonly endpoint: string;
    readonly overrides?: Record<string, unknown>;
    readonly binding?: PreprovisionedBinding;
  },
): Promise<RunningWorker> {
  const config = validateInstallationConfig(
    {
      ...profileDocument(opts.overrides, opts.endpoint),
      kubernetes: { kubeconfig: p.identities.worker.kubeconfig },
    },
    "test",
  );
  return startWorkerProcess({
    db,
    config,
    logger: pino({ level: "silent" }),
    env: { OCC_PREPROVISIONED_NAMESPACE: JSON.stringify(opts.binding ?? p.binding) },
  });
}

/**
 * `occ preprovisioned render` for `id` with the configuration file and the identities' worker
 * and API ServiceAccounts, as the operator runs it (the output not yet applied).
 */
export function renderWithCli(
  id: NamespaceId,
  configFile: string,
  identities: PreprovisionedIdentities,
): OccResult {
  const sa = (who: "worker" | "api") =>
    `${identities[who].subject.namespace ?? ""}/${identities[who].subject.name}`;
  return occ([
    "preprovisioned",
    "render",
    "--namespace-id",
    id,
    "--config",
    configFile,
    "--worker-service-account",
    sa("worker"),
    "--api-service-account",
    sa("api"),
  ]);
}

/** `occ preprovisioned values` for `id` as the operator (reads the bound namespace's UID). */
export function valuesWithCli(id: NamespaceId, configFile: string): OccResult {
  return occ([
    "preprovisioned",
    "values",
    "--namespace-id",
    id,
    "--config",
    configFile,
    "--kubeconfig",
    inject("env").kubeconfigs.operator,
  ]);
}
