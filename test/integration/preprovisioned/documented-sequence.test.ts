import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parse } from "yaml";
import { installationConfigFromValues } from "../../../src/config/chart-values.js";
import {
  agentEgressPolicy,
  currentManagedName,
  type NamespaceId,
  type NetworkPolicy,
} from "../../../src/domain/index.js";
import { EMPTY_DATABASE_URL } from "../../../src/main/preprovisioned-verify.js";
import { createTestDatabase } from "../../harness/db.js";
import {
  documentedBlock,
  operatorFolder,
  runCommand,
  type CommandResult,
} from "../../harness/doc-blocks.js";
import { parseManifests } from "../../harness/helm.js";
import { admin } from "../../harness/preprovisioned.js";
import { installChartCrds } from "../helm/api-server.js";
import { deploymentOf, envOf, installationDocument } from "../helm/rendered.js";
import { recordAgent } from "./file-stacks.js";

/**
 * The preprovisioned sequence of docs/operations.md, run as written: the test reads the doc's
 * command block (tagged `preprovisioned-sequence`), checks it is exactly the sequence below, and runs each command through bash
 * with `occ`, `kubectl` and `helm` on the PATH (the repository's CLI and the real cluster
 * binaries), on a fresh database and the real cluster. Only the doc's placeholders are filled
 * in (`ns_…` with the ID bootstrap printed, `oce-…` with its namespace), and the last step runs
 * as `helm install --dry-run=server --take-ownership`: the shared test cluster already holds
 * the chart's fixed cluster-wide RBAC names (applied by the harness, not by helm), which a real
 * install would refuse to adopt; the server-side dry run changes nothing.
 */
const DOCUMENTED = [
  "cp deploy/helm/openclaw-enterprise/ci/preprovisioned-values.yaml my-values.yaml",
  'occ migrate --database-url "$OCC_DATABASE_URL"',
  'occ bootstrap --database-url "$OCC_DATABASE_URL" --api-key-file admin.key',
  "occ preprovisioned render --namespace-id ns_… --values my-values.yaml -n openclaw-system | kubectl apply -f -",
  'occ preprovisioned verify --namespace-id ns_… --uid "$(kubectl get namespace oce-… -o jsonpath=\'{.metadata.uid}\')" --values my-values.yaml -n openclaw-system --database-url "$OCC_DATABASE_URL"',
  "occ preprovisioned values --namespace-id ns_… --values my-values.yaml -n openclaw-system > binding.yaml",
  "helm install occ deploy/helm/openclaw-enterprise -n openclaw-system -f my-values.yaml -f binding.yaml",
] as const;

let dir: string;
let path: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-doc-"));
  ({ path } = await operatorFolder(dir, { linkDeploy: true }));
  database = await createTestDatabase();
  // The cluster's prerequisites for gateway routing: Gateway API and Envoy Gateway.
  await installChartCrds();
  // The release namespace exists before install (the guide's "Database Secret" step).
  if ((await admin().find("Namespace", { name: "openclaw-system" })) === undefined) {
    await admin().create("Namespace", { metadata: { name: "openclaw-system" } });
  }
});

afterAll(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

function sh(command: string): CommandResult {
  return runCommand(command, {
    cwd: join(dir, "work"),
    env: {
      PATH: path,
      OCC_DATABASE_URL: database.url,
      KUBECONFIG: inject("env").kubeconfigs.admin,
      OCC_PREPROVISIONED_NAMESPACE: "",
    },
  });
}

describe("docs/operations.md: Prepare a preprovisioned namespace", () => {
  it("the documented commands are exactly the tested sequence", () => {
    expect(documentedBlock("preprovisioned-sequence").commands).toEqual([...DOCUMENTED]);
  });

  it(
    "runs as written from an empty database and no namespace to a verified namespace and an installable release",
    { timeout: 300_000 },
    async () => {
      let id = "";
      const fill = (c: string) =>
        c.replaceAll("ns_…", id).replaceAll("oce-…", id === "" ? "" : currentManagedName(id));
      const results: Record<string, string> = {};
      for (const [i, documented] of DOCUMENTED.entries()) {
        let command = fill(documented);
        if (command.startsWith("helm install ")) {
          command = `${command} --dry-run=server --take-ownership`;
        }
        const res = sh(command);
        expect(res.code, `${command}\n${res.stdout}\n${res.stderr}`).toBe(0);
        results[i] = res.stdout;
        if (command.startsWith("occ bootstrap")) {
          id = /default Namespace: (ns_\S+) \(created\)/.exec(res.stderr)?.[1] ?? "";
          expect(id).not.toBe("");
          expect(await admin().find("Namespace", { name: currentManagedName(id) })).toBe(undefined);
        }
      }
      const name = currentManagedName(id);
      const ns = await admin().get("Namespace", { name });
      expect(ns.metadata.annotations?.["openclaw.dev/namespace-lifecycle"]).toBe("preprovisioned");
      expect(results[4]).toContain("passes every check");
      const binding = parse(await readFile(join(dir, "work", "binding.yaml"), "utf8")) as {
        preprovisionedNamespace: { namespaceId: string; uid: string };
      };
      expect(binding.preprovisionedNamespace).toEqual({ namespaceId: id, uid: ns.metadata.uid });

      // What the install would run: the binding in both processes, and the same configuration
      // the namespace was prepared and verified for.
      const rendered = sh(
        "helm template occ deploy/helm/openclaw-enterprise -n openclaw-system -f my-values.yaml -f binding.yaml",
      );
      expect(rendered.code, rendered.stderr).toBe(0);
      const objects = parseManifests(rendered.stdout);
      for (const component of ["api", "worker"] as const) {
        expect(
          JSON.parse(envOf(deploymentOf(objects, component), "OCC_PREPROVISIONED_NAMESPACE") ?? ""),
        ).toEqual(binding.preprovisionedNamespace);
      }
      const chartConfig = join(dir, "work", "chart-installation.yaml");
      await writeFile(chartConfig, JSON.stringify(installationDocument(objects)));
      const again = sh(
        `occ preprovisioned verify --namespace-id ${id} --uid ${ns.metadata.uid ?? ""} --config ${chartConfig}`,
      );
      expect(again.code, again.stdout + again.stderr).toBe(0);

      // An installation with an Agent: its record in the database and the egress policy Compute
      // renders for it in the namespace. The runbook's verify command, run again as written,
      // reads the Agent from the database and passes; with OCC_DATABASE_URL unset it says so.
      const values = join(dir, "work", "my-values.yaml");
      const config = await installationConfigFromValues({
        valuesFile: values,
        releaseNamespace: "openclaw-system",
      });
      const agentId = await recordAgent(
        database.db,
        id as NamespaceId,
        name,
        ns.metadata.uid ?? "",
      );
      await admin().create(
        "NetworkPolicy",
        agentEgressPolicy({
          tenantId: id,
          namespace: name,
          agentId,
          egressAuthority: config.egressAuthority,
          dns: config.compute.dns,
        }) as unknown as NetworkPolicy,
      );
      const verifyCommand = fill(DOCUMENTED[4]);
      const withAgent = sh(verifyCommand);
      expect(withAgent.code, withAgent.stdout + withAgent.stderr).toBe(0);
      expect(withAgent.stdout).toContain("passes every check");
      const noUrl = runCommand(verifyCommand, {
        cwd: join(dir, "work"),
        env: {
          PATH: path,
          OCC_DATABASE_URL: "",
          KUBECONFIG: inject("env").kubeconfigs.admin,
          OCC_PREPROVISIONED_NAMESPACE: "",
        },
      });
      expect(noUrl.code).not.toBe(0);
      expect(noUrl.stderr).toContain(EMPTY_DATABASE_URL);
    },
  );
});
