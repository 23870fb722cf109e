import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultBinDir } from "../../../src/devcluster/local-cluster.js";
import { ADMISSION_POLICY_NAMES } from "../../../src/drivers/kubernetes/admission-policies.js";
import { eventually } from "../../harness/kube.js";
import { startOcc, type OccProcess } from "../../harness/occ.js";

let dir: string | undefined;
let running: OccProcess | undefined;
afterAll(async () => {
  await running?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

async function upAndReady(stateDir: string) {
  const proc = await startOcc(
    ["dev", "up", "--state-dir", stateDir, "--port", "0"],
    /OCC is up: (http:\/\/\S+)/,
  );
  running = proc;
  const env = parseEnv(await readFile(join(stateDir, "dev.env"), "utf8"));
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${env.OCC_API_URL}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${env.OCC_API_KEY}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as { data: { id: string; status: string }[] & { id: string } };
  };
  return { proc, env, call };
}

/** Signs in as the administrator; the session cookie (`occ_session=…`). */
async function signIn(apiUrl: string, password: string): Promise<string> {
  const res = await fetch(`${apiUrl}/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: "admin", password }),
  });
  expect(res.status).toBe(204);
  return res.headers.getSetCookie()[0]?.split(";")[0] ?? "";
}

describe("occ dev up", () => {
  it("starts everything, makes a Namespace ready, stops cleanly on SIGTERM and resumes from its state", async () => {
    dir = await mkdtemp(join(tmpdir(), "occ-devup-"));
    const first = await upAndReady(dir);
    expect(first.env.OCC_API_URL).toBe(first.proc.match[1]);
    expect(first.env.KUBECONFIG).toMatch(/kubeconfig-admin\.yaml$/);
    const created = await first.call("POST", "/namespaces", { name: "dev-support" });
    const id = created.data.id;
    await eventually("dev Namespace ready", async () => {
      const list = await first.call("GET", "/namespaces");
      return list.data.some((n) => n.id === id && n.status === "ready");
    });
    // The cluster administrator's kubeconfig from dev.env sees the placed namespace.
    const kubectl = join(defaultBinDir(), "kubectl");
    const names = execFileSync(kubectl, [
      "--kubeconfig",
      first.env.KUBECONFIG ?? "",
      "get",
      "namespaces",
      "-l",
      `openclaw.dev/namespace=${id}`,
      "-o",
      "name",
    ]).toString();
    expect(names.trim()).toMatch(/^namespace\/oce-[0-9a-f]{15}$/);
    // The administrator can sign in with the password dev up generated (kept, 0600; its path
    // is printed, never the password).
    const passwordFile = join(dir, "admin-password");
    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    const password = (await readFile(passwordFile, "utf8")).trim();
    expect(first.proc.output.join("\n")).toContain(`user admin, password in ${passwordFile}`);
    expect(first.proc.output.join("\n")).toContain(
      `console: ${first.env.OCC_API_URL ?? ""}/console/ (sign in as user admin, password in ${passwordFile})`,
    );
    const session = await signIn(first.env.OCC_API_URL ?? "", password);
    expect(session).toMatch(/^occ_session=/);
    // The chart's admission policies are installed, and the managed namespace bound its own
    // tenant roles (marked as OCC's) — no hand-made RoleBinding.
    const get = (...args: string[]) =>
      execFileSync(kubectl, ["--kubeconfig", first.env.KUBECONFIG ?? "", "get", ...args])
        .toString()
        .trim()
        .split("\n")
        .sort();
    expect(get("validatingadmissionpolicies", "-o", "name")).toEqual(
      Object.values(ADMISSION_POLICY_NAMES).map(
        (n) => `validatingadmissionpolicy.admissionregistration.k8s.io/${n}`,
      ),
    );
    const ns = names.trim().replace("namespace/", "");
    expect(
      get("rolebindings", "-n", ns, "-l", `openclaw.dev/namespace=${id}`, "-o", "name"),
    ).toEqual([
      "rolebinding.rbac.authorization.k8s.io/openclaw-enterprise-tenant-api",
      "rolebinding.rbac.authorization.k8s.io/openclaw-enterprise-tenant-worker",
    ]);

    await first.proc.stop();
    expect(first.proc.child.exitCode).toBe(0);
    expect(first.proc.output.join("\n")).toContain("stopped");
    // The cluster stopped with it: nothing answers on the old API server any more.
    expect(() =>
      execFileSync(
        kubectl,
        ["--kubeconfig", first.env.KUBECONFIG ?? "", "get", "ns", "--request-timeout=2s"],
        {
          stdio: "pipe",
        },
      ),
    ).toThrow();

    const second = await upAndReady(dir);
    // Restarted: the same password, and the session signed before the restart still works.
    expect((await readFile(passwordFile, "utf8")).trim()).toBe(password);
    const me = await fetch(`${second.env.OCC_API_URL}/auth/whoami`, {
      headers: { cookie: session },
    });
    expect(me.status).toBe(200);
    const logged = [
      first.proc.output.join("\n"),
      second.proc.output.join("\n"),
      await readFile(join(dir, "occ.log"), "utf8"),
    ].join("\n");
    expect(logged).not.toContain(password);
    const list = await second.call("GET", "/namespaces");
    expect(list.data.find((n) => n.id === id)?.status).toBe("ready");
    await second.proc.stop();
    expect(second.proc.child.exitCode).toBe(0);
  }, 300_000);
});
