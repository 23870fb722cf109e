/**
 * The administrator console (issue 37) in a real browser: Debian's Chromium, headless, driven
 * through playwright-core against the real `occ api` and `occ worker` processes, PostgreSQL
 * and the test cluster. Elements are found by role and label, as a person finds them. Every
 * page is checked by axe-core (no serious or critical violation) and photographed into
 * test-output/console/ at 1280×800, the list also at 390×844.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { currentManagedName, LABELS } from "../../../src/domain/index.js";
import { buildConsole } from "../../harness/console.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { kubectl } from "../../harness/preprovisioned.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { prepareExternal, readNamespace } from "../compute/fixtures.js";
import { callApi } from "../../harness/api.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { deleteObject } from "./tenants.js";
import type { NamespaceView } from "../../../src/contract/namespaces.js";

const OUTPUT = join("test-output", "console");
const ADMIN_PASSWORD = "the console's admin password 1";
const READER_PASSWORD = "the console's reader password 2";
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 844 };
/** How long the browser waits for the worker's outcome to appear (it polls; no reload). */
const SETTLE = { timeout: 60_000 };

let plane: ControlPlane;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

// The API runs as the shared cluster's `occ-api` with the chart's API role (its read-only
// preflight, Events and admission-policy reads are proven against the real RBAC authorizer);
// the tenant roles are bound to the harness users, so the grants the console shows name them.
controlPlaneForFile(
  {
    workerConfig: { resyncSeconds: 2 },
    apiKubeconfig: inject("env").kubeconfigs["occ-api"],
    kubernetesConfig:
      "  tenantRoleBindings:\n" +
      "    worker: { kind: User, name: occ-worker }\n" +
      "    api: { kind: User, name: occ-api }\n",
  },
  (started) => {
    plane = started;
  },
);

/** Sets a principal's password through the API (204, no body), as the administrator. */
async function setPassword(id: string, password: string): Promise<void> {
  const res = await fetch(`${plane.apiUrl}/principals/${id}/password`, {
    method: "PUT",
    headers: { authorization: `Bearer ${plane.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ password }),
  });
  expect(res.status).toBe(204);
}

/**
 * A user with a password, created through the API as the bootstrap administrator; its role is
 * bound Installation-wide, or to one Namespace with `namespaceId`.
 */
async function user(
  name: string,
  password: string,
  permissions: readonly object[],
  namespaceId: string | null = null,
) {
  const p = await callApi(plane, "POST", "/principals", { kind: "user", name });
  const id = (p.body as { data: { id: string } }).data.id;
  if (permissions.length > 0) {
    const role = await callApi(plane, "POST", "/roles", { name: `role-${name}`, permissions });
    const roleId = (role.body as { data: { id: string } }).data.id;
    const bound = await callApi(plane, "POST", "/bindings", {
      principalId: id,
      roleId,
      namespaceId,
    });
    expect(bound.status).toBe(201);
  }
  await setPassword(id, password);
}

/** Axe on the page as it is: no serious or critical violation; and a screenshot. */
async function check(p: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page: p }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    name,
  ).toEqual([]);
  await p.screenshot({ path: join(OUTPUT, `${name}.png`), fullPage: true });
}

async function signIn(p: Page, name: string, password: string): Promise<void> {
  await p.goto(`${plane.apiUrl}/console/`);
  await p.getByLabel("User", { exact: true }).fill(name);
  await p.getByLabel("Password", { exact: true }).fill(password);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.getByText(`Signed in as ${name}`).waitFor();
}

/** The Namespace the console's page shows (its ID from the address). */
function shownId(p: Page): string {
  const id = /\/console\/namespaces\/(ns_[^/?#]+)/.exec(p.url())?.[1];
  if (id === undefined) throw new Error(`not a Namespace page: ${p.url()}`);
  return id;
}

/** Opens the create form and fills it; with `existing`, selects that namespace. */
async function fillCreateForm(p: Page, name: string, existing?: string): Promise<void> {
  await p.getByRole("link", { name: "Namespaces", exact: true }).click();
  await p.getByRole("link", { name: "Create Namespace" }).click();
  await p.getByLabel("Name", { exact: true }).fill(name);
  if (existing !== undefined) {
    await p.getByRole("radio", { name: /Existing namespace/ }).check();
    await p.getByLabel("Kubernetes namespace", { exact: true }).fill(existing);
  }
}

async function submitCreate(p: Page): Promise<string> {
  await p.getByRole("button", { name: "Create", exact: true }).click();
  await p.waitForURL(/\/console\/namespaces\/ns_/);
  return shownId(p);
}

async function createThroughForm(p: Page, name: string): Promise<string> {
  await fillCreateForm(p, name);
  await check(p, "create-managed");
  return submitCreate(p);
}

/**
 * Records in the page whether a `<progress>` is ever rendered (the SPA keeps its document). A
 * string: the tests are compiled without the DOM's types.
 */
async function watchProgress(p: Page): Promise<void> {
  await p.evaluate(`
    window.occSawProgress = false;
    new MutationObserver(() => {
      if (document.querySelector("progress") !== null) window.occSawProgress = true;
    }).observe(document.body, { subtree: true, childList: true });
  `);
}

const sawProgress = async (p: Page) => (await p.evaluate("window.occSawProgress")) === true;

const status = (p: Page) => p.getByRole("status").filter({ hasText: "Status" });

beforeAll(async () => {
  await Promise.all([mkdir(OUTPUT, { recursive: true }), buildConsole()]);
  // The bootstrap administrator (`admin`) gets a password, as `occ principals set-password` does.
  const who = await callApi(plane, "GET", "/auth/whoami");
  const admin = (who.body as { data: { principal: { id: string } } }).data.principal.id;
  await setPassword(admin, ADMIN_PASSWORD);
  await user("reader", READER_PASSWORD, [{ action: "read", kind: "namespace" }]);
  const launched = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  browser = launched;
  context = await launched.newContext({ viewport: WIDE });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the console in Chromium", () => {
  it("signs in with a password; shows who is signed in and the Installation", async () => {
    await page.goto(`${plane.apiUrl}/console/`);
    await page.getByRole("heading", { name: "Sign in to OCC" }).waitFor();
    await check(page, "sign-in");
    // A wrong password: the API's refusal, as it said it.
    await page.getByLabel("User", { exact: true }).fill("admin");
    await page.getByLabel("Password", { exact: true }).fill("not the password at all");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), SETTLE)
      .toContain("UNAUTHENTICATED");
    await signIn(page, "admin", ADMIN_PASSWORD);
    await page.getByRole("heading", { name: "Namespaces" }).waitFor();
    await page.getByRole("link", { name: "Installation" }).click();
    await page.getByRole("heading", { name: "Workers" }).waitFor();
    await expect.poll(() => page.getByRole("row").count(), SETTLE).toBeGreaterThan(1);
    expect(await page.getByRole("cell", { name: "running" }).count()).toBeGreaterThan(0);
    // The profile, and the chart's admission policies the run installed, read by the API.
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    await page.getByText("normal: managed and existing namespaces").waitFor();
    const policies = page.getByRole("list", { name: "Admission policies" });
    await expect.poll(() => policies.getByRole("listitem").count(), SETTLE).toBe(3);
    expect(await policies.textContent()).toContain("openclaw-enterprise-namespaces: present");
    await check(page, "installation");
  });

  it("creates a managed Namespace and watches it become ready; a deleted default-deny is repaired on the timeline", async () => {
    const name = uniqueName("console-managed");
    // Live updates: the page shows the worker's progress and follows it without a reload.
    await watchProgress(page);
    let loads = 0;
    const onLoad = () => {
      loads += 1;
    };
    page.on("load", onLoad);
    const id = await createThroughForm(page, name);
    await page.getByRole("heading", { name }).waitFor();
    // The operator's step in this cluster: the worker's tenant RoleBinding (as readyManaged).
    const namespace = currentManagedName(id);
    await eventually(
      `${namespace} created`,
      async () => (await readNamespace(namespace)) !== undefined,
    );
    await bindTenantRole(namespace, "occ-worker");
    await status(page).filter({ hasText: "ready" }).waitFor(SETTLE);
    page.off("load", onLoad);
    expect(loads, "page loads between submitting and ready").toBe(0);
    expect(await sawProgress(page), "a progress bar while provisioning").toBe(true);
    await expect
      .poll(() => page.getByRole("listitem").filter({ hasText: "→ ready" }).count(), SETTLE)
      .toBeGreaterThan(0);
    await page.getByRole("heading", { name: "Resources" }).waitFor();
    // The tenant namespace's Kubernetes Events beside the audit events (the worker's among them).
    const k8sEvents = page.getByRole("list", { name: "Kubernetes Events" }).getByRole("listitem");
    await expect.poll(() => k8sEvents.count(), SETTLE).toBeGreaterThan(0);
    await check(page, "namespace-ready");

    await deleteObject("NetworkPolicy", namespace, "default-deny");
    await page
      .getByRole("list", { name: "Timeline" })
      .getByText("repaired NetworkPolicy")
      .first()
      .waitFor(SETTLE);
    await check(page, "namespace-repaired");

    await page.getByRole("link", { name: "Namespaces", exact: true }).click();
    await page.getByRole("link", { name }).waitFor();
    await page.getByLabel("Status").selectOption("ready");
    await page.getByRole("link", { name }).waitFor();
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No Namespaces with status failed").waitFor();
    await page.getByLabel("Status").selectOption("");
    await check(page, "namespaces");
    await page.setViewportSize(NARROW);
    await check(page, "namespaces-narrow");
    await page.setViewportSize(WIDE);
  });

  it("selects an operator's namespace without a Pod Security label: preflight refuses before submit; fixed with kubectl, retried, ready; then deleted", async () => {
    const ns = await prepareExternal({ omitLabels: [LABELS.podSecurityEnforce] });
    const namespace = ns.metadata?.name ?? "";
    await bindTenantRole(namespace, "occ-worker");
    const name = uniqueName("console-external");
    await fillCreateForm(page, name, namespace);
    // Offered among the selectable namespaces, and its preflight shown before submitting.
    const offered = page.locator(`datalist option[value="${namespace}"]`);
    await expect.poll(() => offered.count(), SETTLE).toBe(1);
    const failing = page.getByRole("list", { name: "Failing requirements" });
    await failing.waitFor(SETTLE);
    expect(await failing.textContent()).toContain(LABELS.podSecurityEnforce);
    // The API's tenant RoleBinding is missing too: the grants below fix it.
    expect(await failing.textContent()).toContain("role-binding");
    await check(page, "create-existing");
    await page.setViewportSize(NARROW);
    await check(page, "create-existing-narrow");
    await page.setViewportSize(WIDE);
    await submitCreate(page);
    await status(page).filter({ hasText: "failed" }).waitFor(SETTLE);
    const reason = page.getByRole("note", { name: "Status reason" });
    await expect.poll(() => reason.textContent(), SETTLE).toContain(LABELS.podSecurityEnforce);
    expect(await reason.textContent()).toContain("KUBERNETES_OWNERSHIP_CONFLICT");
    await page.getByRole("button", { name: "Copy Grant command" }).waitFor();
    const yaml = (await page.getByLabel("Grant YAML", { exact: true }).textContent()) ?? "";
    expect(yaml).toContain(`namespace: ${namespace}`);
    await check(page, "namespace-refused");

    // The operator applies exactly the YAML shown, and sets the label.
    kubectl("admin", ["apply", "-f", "-"], yaml);
    kubectl("admin", ["label", "namespace", namespace, `${LABELS.podSecurityEnforce}=restricted`]);
    await page.getByRole("button", { name: "Retry" }).click();
    await status(page).filter({ hasText: "ready" }).waitFor(SETTLE);
    expect(await page.getByRole("note", { name: "Status reason" }).count()).toBe(0);

    await page.getByRole("button", { name: "Delete…" }).click();
    const confirm = page.getByRole("region", { name: `Delete ${name}?` });
    expect(await confirm.textContent()).toContain(`Kept: the namespace ${namespace} itself`);
    await check(page, "namespace-delete");
    await confirm.getByRole("button", { name: `Delete ${name}` }).click();
    await page.getByRole("heading", { name: "Namespace deleted" }).waitFor(SETTLE);
    const gone = await callApi(plane, "GET", `/namespaces/${shownId(page)}`);
    expect(gone.status).toBe(404);
    // The operator's namespace is still there.
    expect(kubectl("admin", ["get", "namespace", namespace, "-o", "name"]).trim()).toBe(
      `namespace/${namespace}`,
    );
  });

  it("a read-only principal sees no create button, and a forged create is refused by the API", async () => {
    const other = await context.browser()?.newContext({ viewport: NARROW });
    if (other === undefined) throw new Error("no browser");
    try {
      const p = await other.newPage();
      // Keyboard only: Tab to each field, Enter submits.
      await p.goto(`${plane.apiUrl}/console/`);
      await p.getByRole("heading", { name: "Sign in to OCC" }).waitFor();
      await p.keyboard.press("Tab");
      await p.keyboard.type("reader");
      await p.keyboard.press("Tab");
      await p.keyboard.type(READER_PASSWORD);
      await p.keyboard.press("Enter");
      await p.getByText("Signed in as reader").waitFor();
      await p.getByRole("heading", { name: "Namespaces" }).waitFor();
      await p
        .getByRole("link", { name: /console-managed/ })
        .first()
        .waitFor();
      expect(await p.getByRole("link", { name: "Create Namespace" }).count()).toBe(0);
      await check(p, "namespaces-reader");
      // A read-only principal sees a Namespace's timeline: audit and Kubernetes Events.
      await p
        .getByRole("link", { name: /console-managed/ })
        .first()
        .click();
      await p.getByRole("list", { name: "Timeline" }).getByRole("listitem").first().waitFor();
      await p.getByRole("list", { name: "Kubernetes Events" }).waitFor();
      await check(p, "namespace-reader");
      await p.getByRole("link", { name: "← Namespaces" }).click();
      const forged = await p.evaluate(async () => {
        const res = await fetch("/namespaces", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "forged-in-the-console" }),
        });
        return { status: res.status, body: (await res.json()) as { error: { code: string } } };
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("FORBIDDEN");
      // Preflight, the selectable namespaces and the Installation are for administrators.
      const refusals = await p.evaluate(async () =>
        Promise.all(
          [
            "/namespaces/preflight?existingNamespace=anything",
            "/namespaces/selectable",
            "/installation",
          ].map(async (path) => (await fetch(path)).status),
        ),
      );
      expect(refusals).toEqual([403, 403, 403]);
      const listed = await callApi(plane, "GET", "/namespaces?limit=1000");
      const names = (listed.body as { data: NamespaceView[] }).data.map((n) => n.name);
      expect(names).not.toContain("forged-in-the-console");
      await p.getByRole("button", { name: "Sign out" }).click();
      await p.getByRole("heading", { name: "Sign in to OCC" }).waitFor();
    } finally {
      await other.close();
    }
  });

  it("a principal bound to one Namespace sees only that one; another's page shows the API's refusal", async () => {
    const created = await Promise.all(
      ["console-mine", "console-theirs"].map(async (prefix) => {
        const res = await callApi(plane, "POST", "/namespaces", { name: uniqueName(prefix) });
        expect(res.status).toBe(201);
        return (res.body as { data: NamespaceView }).data;
      }),
    );
    const [mine, theirs] = created as [NamespaceView, NamespaceView];
    await user("tenant-reader", READER_PASSWORD, [{ action: "read", kind: "namespace" }], mine.id);
    const other = await browser?.newContext({ viewport: WIDE });
    if (other === undefined) throw new Error("no browser");
    try {
      const p = await other.newPage();
      await signIn(p, "tenant-reader", READER_PASSWORD);
      await p.getByRole("link", { name: mine.name }).waitFor();
      // Every Namespace link on the list is the one it may read (the others exist: theirs, and
      // the earlier tests').
      const links = await p.getByRole("link", { name: /^console-/ }).allTextContents();
      expect(links.map((l) => l.trim())).toEqual([mine.name]);
      await p.goto(`${plane.apiUrl}/console/namespaces/${theirs.id}`);
      await expect
        .poll(() => p.getByRole("alert").first().textContent(), SETTLE)
        .toContain("FORBIDDEN");
      expect(await p.getByRole("heading", { name: theirs.name }).count()).toBe(0);
      expect(await p.getByText("Loading…").count()).toBe(0);
      await check(p, "namespace-refused");
    } finally {
      await other.close();
      for (const ns of created) await callApi(plane, "DELETE", `/namespaces/${ns.id}`);
    }
  });
});
