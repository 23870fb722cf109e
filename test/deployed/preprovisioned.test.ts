/**
 * The preprovisioned sequence of docs/operations.md ("Prepare a preprovisioned namespace") run
 * as written on a real node, to a ready Namespace: the test reads the doc's command block and
 * runs each command through bash with `occ` (the repository's CLI), `kubectl` and `helm` on the
 * PATH. Only the doc's placeholders are filled in (`ns_…` with the ID bootstrap printed, `oce-…`
 * with its namespace), and the values file is adapted after step 0 as the doc's comment says
 * (the imported image, this node's database and API server, and the OpenShell gateway — a
 * real gRPC server of the tests on the node's address, as no OpenShell runs here). Then the
 * release's pods must become Ready as get-one-namespace identities and the bound Namespace
 * ready, read back through the API Service, the API server and the database.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { parse, stringify } from "yaml";
import { currentManagedName } from "../../src/domain/index.js";
import { operatorFolder, runCommand, type CommandResult } from "../harness/doc-blocks.js";
import { REPO_ROOT } from "../harness/helm.js";
import { startTestGateway, type TestGateway } from "../harness/openshell-gateway.js";
import {
  apiClient,
  apiServiceUrl,
  chartNames,
  createDatabase,
  describeRelease,
  helm,
  nodeValues,
  prepareReleaseNamespace,
  readyPods,
  untilReady,
} from "../harness/node/chart.js";
import { eventually, kubectlOk } from "../harness/node/kubectl.js";
import "../harness/node/environment.js";

const env = inject("deployed");
const HEADING = "## Prepare a preprovisioned namespace";
const releaseNs = "openclaw-system";
let work: string;
let path: string;
let databaseUrl: string;
let db: pg.Client;
let gateway: TestGateway;

/** The first `sh` block under the heading, without comments, one command per line. */
async function documentedCommands(): Promise<string[]> {
  const doc = await readFile(join(REPO_ROOT, "docs", "operations.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf(HEADING)))?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

function sh(command: string): CommandResult {
  return runCommand(command, {
    cwd: work,
    timeoutMs: 180_000,
    env: {
      PATH: path,
      OCC_DATABASE_URL: databaseUrl,
      KUBECONFIG: env.kubeconfig,
      OCC_PREPROVISIONED_NAMESPACE: "",
    },
  });
}

beforeAll(async () => {
  ({ work, path } = await operatorFolder(await mkdtemp(join(env.runDir, "preprovisioned-")), {
    linkDeploy: true,
  }));
  const database = await createDatabase(env, "occ_preprovisioned");
  databaseUrl = database.url;
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  // The cluster's prerequisites for gateway routing (Gateway API, Envoy Gateway's EnvoyProxy)
  // and the guide's "Database Secret" step.
  const crds = spawnSync("bash", [join(REPO_ROOT, "tools", "crds.sh")], { encoding: "utf8" });
  expect(crds.status, crds.stderr).toBe(0);
  await kubectlOk(env.kubeconfig, [
    "apply",
    "--server-side",
    "-f",
    join(REPO_ROOT, ".tools", "crds"),
  ]);
  await prepareReleaseNamespace(env, releaseNs, database.urlForPods);
  gateway = await startTestGateway({ host: env.nodeAddress });
});

afterAll(async () => {
  await helm(env, ["uninstall", "occ", "-n", releaseNs, "--wait", "--timeout", "120s"]);
  await db.end();
  await gateway.stop();
});

describe("docs/operations.md: Prepare a preprovisioned namespace, on a real node", () => {
  it("runs as written to Ready pods with get-one-namespace identities and a ready Namespace", async () => {
    const commands = await documentedCommands();
    expect(commands[0]).toBe(
      "cp deploy/helm/openclaw-enterprise/ci/preprovisioned-values.yaml my-values.yaml",
    );
    expect(commands.at(-1)).toMatch(/^helm install occ deploy\/helm\/openclaw-enterprise /);
    let id = "";
    const fill = (c: string) =>
      c.replaceAll("ns_…", id).replaceAll("oce-…", id === "" ? "" : currentManagedName(id));
    for (const documented of commands) {
      const command = fill(documented);
      const res = sh(command);
      expect(res.code, `${command}\n${res.stdout}\n${res.stderr}`).toBe(0);
      if (command.startsWith("cp ")) await adaptValues(join(work, "my-values.yaml"));
      if (command.startsWith("occ bootstrap")) {
        id = /default Namespace: (ns_\S+) \(created\)/.exec(res.stderr)?.[1] ?? "";
        expect(id, res.stderr).not.toBe("");
      }
    }
    const namespace = currentManagedName(id);
    const why = () => describeRelease(env, releaseNs);
    const names = chartNames("occ");
    await eventually(
      "api and worker Ready",
      async () =>
        (await readyPods(env, releaseNs, "api")).length === 2 &&
        (await readyPods(env, releaseNs, "worker")).length === 2
          ? true
          : undefined,
      150_000,
      why,
    );
    const key = (await readFile(join(work, "admin.key"), "utf8")).trim();
    const api = apiClient(await apiServiceUrl(env, releaseNs, names.api), key);
    await untilReady(api, id, 180_000, why);
    const row = await db.query<{ status: string; kubernetes_uid: string }>(
      "SELECT status, kubernetes_uid FROM namespaces WHERE id = $1",
      [id],
    );
    const uid = await kubectlOk(env.kubeconfig, [
      "get",
      "namespace",
      namespace,
      "-o",
      "jsonpath={.metadata.uid}",
    ]);
    expect(row.rows[0]).toEqual({ status: "ready", kubernetes_uid: uid });
    // The pods run as the chart's ServiceAccounts, whose namespace access is `get` on this one.
    const accounts = await kubectlOk(env.kubeconfig, [
      "-n",
      releaseNs,
      "get",
      "pods",
      "-o",
      'jsonpath={range .items[*]}{.metadata.labels.app\\.kubernetes\\.io/component}={.spec.serviceAccountName}{"\\n"}{end}',
    ]);
    // Two of each: the chart's default replicas.
    expect(accounts.trim().split("\n").sort()).toEqual([
      "api=occ-api",
      "api=occ-api",
      "worker=occ-worker",
      "worker=occ-worker",
    ]);
    for (const role of ["worker", "api"]) {
      const rules = JSON.parse(
        await kubectlOk(env.kubeconfig, [
          "get",
          "clusterrole",
          `openclaw-enterprise-${role}-namespaces`,
          "-o",
          "jsonpath={.rules}",
        ]),
      ) as unknown;
      expect(rules).toEqual([
        { apiGroups: [""], resources: ["namespaces"], resourceNames: [namespace], verbs: ["get"] },
      ]);
    }
    // The worker placed the tenant's quota and policies inside and its OpenShell workspace.
    const owned = await kubectlOk(env.kubeconfig, [
      "-n",
      namespace,
      "get",
      "resourcequota,limitrange,networkpolicy",
      "-o",
      "name",
    ]);
    expect(owned).toMatch(/resourcequota/);
    expect(owned).toMatch(/networkpolicy.networking.k8s.io\/default-deny/);
    expect(gateway.workspaces.size).toBe(1);
  });
});

/** Step 0's "adapt it": this node's image, database, API server and OpenShell gateway. */
async function adaptValues(file: string): Promise<void> {
  const values = parse(await readFile(file, "utf8")) as Record<string, Record<string, unknown>>;
  const node = nodeValues(env);
  const openshell = values.openshell ?? {};
  const adapted = {
    ...values,
    ...node,
    openshell: {
      ...openshell,
      endpoint: gateway.endpoint,
      egress: {
        port: Number(gateway.endpoint.split(":")[1]),
        peers: [{ cidr: `${env.nodeAddress}/32` }],
      },
    },
  };
  await writeFile(file, stringify(adapted));
}
