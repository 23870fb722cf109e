/**
 * The OpenTofu provider's acceptance test (issue 41): the real `tofu` CLI, the provider built
 * from terraform-provider-occ, the real `occ api` and `occ worker` processes, PostgreSQL and the
 * test cluster. The seed-000 example (a managed and an existing-namespace tenant, each with its
 * Configuration) plus every other resource and data source: plan → apply to ready → a change
 * made through the API is drift in the next plan (exit code 2) → apply restores it → import by
 * ID → destroy, after which the external namespace is still in the cluster.
 */
import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANNOTATIONS } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { REPO_ROOT } from "../../harness/helm.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { callApi } from "../../harness/api.js";
import { controlPlaneForFile, type ControlPlane } from "../e2e/control-plane.js";
import { buildTofu, tofuIn, valuesOf, type Tofu } from "./tofu.js";

const PROVIDER = join(REPO_ROOT, "terraform-provider-occ");
const EXAMPLE = join(PROVIDER, "examples", "seed-000", "main.tf");
const EXTRAS = join(REPO_ROOT, "test", "integration", "tofu", "extras.tf");
const SECRET_VALUE = "tofu-acceptance-secret-value";
const LONG = 300_000;

let plane: ControlPlane;
controlPlaneForFile({}, (p) => (plane = p));
let tofu: Tofu;
let external: string;

interface Data<T> {
  data: T;
}
type Namespace = {
  id: string;
  name: string;
  status: string;
  placement: { kubernetesNamespace: string };
};
type Configuration = { id: string; values: Record<string, unknown> };

async function get(path: string): Promise<{ status: number; data: unknown }> {
  const res = await callApi(plane, "GET", path);
  return { status: res.status, data: (res.body as Data<unknown>).data };
}

async function getConfiguration(path: string): Promise<{ data: Configuration }> {
  return { data: (await get(path)).data as Configuration };
}

/** Grants the worker its tenant role in the managed namespace once it exists (the operator). */
async function grantWhenCreated(name: string): Promise<void> {
  let namespace = "";
  await eventually(
    `managed Namespace ${name} placed`,
    async () => {
      const list = (await get("/namespaces?limit=100")).data as Namespace[];
      namespace = list.find((n) => n.name === name)?.placement.kubernetesNamespace ?? "";
      return namespace !== "" && (await readNamespace(namespace)) !== undefined;
    },
    LONG,
  );
  await bindTenantRole(namespace, "occ-worker");
}

beforeAll(async () => {
  await buildTofu();
  const ns = await prepareExternal();
  external = ns.metadata?.name ?? "";
  await bindTenantRole(external, "occ-worker");
  const principal = await callApi(plane, "POST", "/principals", { kind: "service", name: "ci" });
  tofu = await tofuIn([EXAMPLE, EXTRAS], {
    OCC_ENDPOINT: plane.apiUrl,
    OCC_API_KEY: plane.apiKey,
    TF_VAR_existing_namespace: external,
    TF_VAR_principal_id: (principal.body as Data<{ id: string }>).data.id,
    TF_VAR_secret_value: SECRET_VALUE,
  });
}, 900_000);
afterAll(async () => {
  if (typeof tofu !== "undefined") await rm(tofu.dir, { recursive: true, force: true });
});

/** `tofu plan -detailed-exitcode`: code 0 when nothing differs, 2 when a change is planned. */
const detailedPlan = () => tofu.run("plan", "-detailed-exitcode", "-no-color", "-input=false");

/** The state matches the API: a plan finds no difference. */
async function expectNoDifference(): Promise<void> {
  const plan = await detailedPlan();
  expect(plan.code, plan.output).toBe(0);
}

describe("terraform-provider-occ with the real tofu", () => {
  it(
    "has the client oapi-codegen generates from the API's current document",
    async () => {
      const out = join(tofu.dir, "client.gen.go");
      await promisify(execFile)("bash", [join(PROVIDER, "generate.sh"), out], { cwd: REPO_ROOT });
      const committed = await readFile(
        join(PROVIDER, "internal", "client", "client.gen.go"),
        "utf8",
      );
      expect(
        (await readFile(out, "utf8")) === committed,
        "the API's document changed: run terraform-provider-occ/generate.sh and commit the client",
      ).toBe(true);
    },
    LONG,
  );

  it(
    "plans, then applies the seed-000 example to two ready tenants",
    async () => {
      const plan = await tofu.ok("plan", "-no-color", "-input=false");
      expect(plan).toContain("Plan: 8 to add, 0 to change, 0 to destroy.");
      const [applied] = await Promise.all([
        tofu.ok("apply", "-auto-approve", "-no-color", "-input=false"),
        grantWhenCreated("research"),
      ]);
      expect(applied).toContain("Apply complete! Resources: 8 added");
      const state = await tofu.state();
      for (const name of ["research", "support"]) {
        const id = String(valuesOf(state, `occ_namespace.${name}`).id);
        const ns = { data: (await get(`/namespaces/${id}`)).data as Namespace };
        expect(ns.data).toMatchObject({ name, status: "ready" });
        const cfg = valuesOf(state, `occ_configuration.${name}_agent`);
        const read = await getConfiguration(`/namespaces/${id}/configurations/${String(cfg.id)}`);
        expect(read.data.values).toEqual(JSON.parse(String(cfg.values)));
        const cm = await admin.list("ConfigMap", {
          namespace: ns.data.placement.kubernetesNamespace,
        });
        expect(cm.length).toBeGreaterThan(0);
      }
      expect(valuesOf(state, "occ_namespace.support")).toMatchObject({
        existing_namespace: external,
        placement_mode: "external",
        kubernetes_namespace: external,
      });
      expect(valuesOf(state, "data.occ_namespace.support")).toMatchObject({ status: "ready" });
      const grants = valuesOf(state, "data.occ_namespace_grants.research").grants as unknown[];
      expect(grants).toEqual([
        expect.objectContaining({ role_id: valuesOf(state, "occ_role.reader").id }),
      ]);
      // The write-only value reached the API (version 1) and is nowhere in the state.
      expect(valuesOf(state, "occ_secret.model_key")).toMatchObject({ version: 1, value: null });
      expect(await tofu.stateFile()).not.toContain(SECRET_VALUE);
    },
    LONG,
  );

  it(
    "shows a change made through the API as drift, and apply restores it",
    async () => {
      const cfg = valuesOf(await tofu.state(), "occ_configuration.research_agent");
      const path = `/namespaces/${String(cfg.namespace_id)}/configurations/${String(cfg.id)}`;
      const patched = await callApi(plane, "PATCH", path, { values: { model: "changed" } });
      expect(patched.status).toBe(200);
      const drift = await detailedPlan();
      expect(drift.code, drift.output).toBe(2);
      expect(drift.output).toContain("occ_configuration.research_agent will be updated in-place");
      await tofu.ok("apply", "-auto-approve", "-no-color", "-input=false");
      expect((await getConfiguration(path)).data.values).toEqual({
        model: "default",
        temperature: 0.2,
      });
      await expectNoDifference();
    },
    LONG,
  );

  it(
    "imports a Namespace and a Configuration by ID with no difference after",
    async () => {
      const state = await tofu.state();
      const ns = String(valuesOf(state, "occ_namespace.support").id);
      const cfg = String(valuesOf(state, "occ_configuration.support_agent").id);
      await tofu.ok("state", "rm", "occ_configuration.support_agent", "occ_namespace.support");
      await tofu.ok("import", "-no-color", "-input=false", "occ_namespace.support", ns);
      await tofu.ok(
        "import",
        "-no-color",
        "-input=false",
        "occ_configuration.support_agent",
        `${ns}/${cfg}`,
      );
      expect(valuesOf(await tofu.state(), "occ_namespace.support")).toMatchObject({
        id: ns,
        existing_namespace: external,
      });
      await expectNoDifference();
    },
    LONG,
  );

  it(
    "fails an apply with the API's reason when the worker refuses the namespace",
    async () => {
      const ns = await prepareExternal({ omitAnnotations: [ANNOTATIONS.lifecycle] });
      const name = ns.metadata?.name ?? "";
      await bindTenantRole(name, "occ-worker");
      const refused = await tofuIn([join(REPO_ROOT, "test", "integration", "tofu", "refused.tf")], {
        OCC_ENDPOINT: plane.apiUrl,
        OCC_API_KEY: plane.apiKey,
        TF_VAR_existing_namespace: name,
      });
      try {
        const apply = await refused.run("apply", "-auto-approve", "-no-color", "-input=false");
        expect(apply.code, apply.output).toBe(1);
        expect(apply.output).toMatch(
          /failed: status failed,\s+reason\s+KUBERNETES_OWNERSHIP_CONFLICT:/,
        );
        // Kept in state, tainted: the next plan replaces it, destroy removes it.
        const plan = await refused.ok("plan", "-no-color", "-input=false");
        expect(plan).toContain("occ_namespace.refused is tainted, so it must be replaced");
        await refused.ok("destroy", "-auto-approve", "-no-color", "-input=false");
        expect((await readNamespace(name))?.metadata?.labels?.team).toBe("support");
      } finally {
        await rm(refused.dir, { recursive: true, force: true });
      }
    },
    LONG,
  );

  it(
    "destroys everything; the external namespace stays in the cluster",
    async () => {
      const state = await tofu.state();
      const ids = ["research", "support"].map((n) =>
        String(valuesOf(state, `occ_namespace.${n}`).id),
      );
      const managed = String(valuesOf(state, "occ_namespace.research").kubernetes_namespace);
      const out = await tofu.ok("destroy", "-auto-approve", "-no-color", "-input=false");
      expect(out).toContain("Destroy complete! Resources: 8 destroyed.");
      for (const id of ids) expect((await get(`/namespaces/${id}`)).status).toBe(404);
      const kept = await readNamespace(external);
      expect(kept?.metadata?.labels?.team).toBe("support");
      await eventually(`${managed} deleted`, async () => {
        const ns = await readNamespace(managed);
        return ns === undefined || ns.metadata?.deletionTimestamp !== undefined;
      });
    },
    LONG,
  );
});
