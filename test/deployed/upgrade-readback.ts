/**
 * The upgrade suite's steps and readings (test/deployed/upgrade.test.ts): a release rolled
 * out to an image, an operator-prepared namespace and its grants, and what the release's
 * database says each queued item and tenant went through.
 */
import type pg from "pg";
import {
  ANNOTATIONS,
  LIFECYCLE,
  MARKER_VALUES,
  POD_SECURITY_LABELS,
} from "../../src/domain/index.js";
import { deploymentImages, describeRelease } from "../harness/node/chart.js";
import { eventually, kubectlApply, kubectlOk } from "../harness/node/kubectl.js";
import type { DeployedEnvironment } from "../harness/node/environment.js";
import type { ProbeSummary } from "../harness/node/rollout-probe.js";

/** Until both Deployments run `image` with every replica updated and Ready. */
export async function rolledOutTo(
  env: DeployedEnvironment,
  ns: string,
  image: string,
): Promise<void> {
  let last: string[] = [];
  await eventually(
    `api and worker on ${image}, 2/2`,
    async () => {
      last = await deploymentImages(env, ns);
      return last.join(",") === `${image} 2/2,${image} 2/2` ? true : undefined;
    },
    120_000,
    async () => `last seen ${JSON.stringify(last)}\n${await describeRelease(env, ns)}`,
  );
}

/** The Deployments in tenant A's namespace: the Agent's gateway, once deployed. */
export async function gatewayDeployments(
  env: DeployedEnvironment,
  namespace: string,
): Promise<string> {
  return (await kubectlOk(env.kubeconfig, ["-n", namespace, "get", "deploy", "-o", "name"])).trim();
}

/** An operator-prepared namespace (docs/operations.md), granted to the release or not. */
export async function prepareExternal(
  env: DeployedEnvironment,
  ns: string,
  name: string,
  granted: boolean,
): Promise<void> {
  const labels = Object.fromEntries(
    POD_SECURITY_LABELS.map((l) => [l, MARKER_VALUES.podSecurityLevel]),
  );
  await kubectlApply(env.kubeconfig, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels, annotations: { [ANNOTATIONS.lifecycle]: LIFECYCLE.external } },
  });
  if (granted) await grant(env, ns, name);
}

/** The release's tenant roles granted in `namespace` to its worker and API accounts. */
export async function grant(
  env: DeployedEnvironment,
  ns: string,
  namespace: string,
): Promise<void> {
  for (const who of ["worker", "api"]) {
    await kubectlOk(env.kubeconfig, [
      "-n",
      namespace,
      "create",
      "rolebinding",
      `occ-${who}-tenant`,
      `--clusterrole=openclaw-enterprise-tenant-${who}`,
      `--serviceaccount=${ns}:occ-${who}`,
    ]);
  }
}

/** A work item's rows by idempotency key: how many, and their states. */
export async function workStates(db: pg.Client, idempotencyKey: string): Promise<string[]> {
  const r = await db.query<{ state: string }>(
    "SELECT state FROM work_items WHERE idempotency_key = $1",
    [idempotencyKey],
  );
  return r.rows.map((row) => row.state);
}

/** The lifecycle audit events of tenant `id` that moved it to `to`. */
export async function transitionsTo(db: pg.Client, id: string, to: string): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM audit_events
      WHERE kind = 'lifecycle' AND resource_id = $1 AND details->>'to' = $2`,
    [id, to],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** The image of the worker pod whose pass moved tenant `id` to ready (`<pod>:<pid>` in its audit event). */
export async function placedByImage(
  env: DeployedEnvironment,
  ns: string,
  db: pg.Client,
  id: string,
): Promise<string> {
  const r = await db.query<{ worker: string | null }>(
    `SELECT details->>'worker' AS worker FROM audit_events
      WHERE kind = 'lifecycle' AND resource_id = $1 AND details->>'to' = 'ready'`,
    [id],
  );
  const pod = (r.rows[0]?.worker ?? "").split(":")[0] ?? "";
  return kubectlOk(env.kubeconfig, [
    "-n",
    ns,
    "get",
    "pod",
    pod,
    "-o",
    "jsonpath={.spec.containers[0].image}",
  ]);
}

/** One line of the probe's summary in the test log. */
export function report(what: string, s: ProbeSummary): void {
  console.log(
    `[upgrade] ${what}: ${s.requests} requests, ${JSON.stringify(s.outcomes)}, ` +
      `longest without an answer ${s.longestUnansweredMs} ms`,
  );
}
