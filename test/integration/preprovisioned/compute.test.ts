import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PREPROVISIONED_MESSAGES } from "../../../src/domain/index.js";
import { isKubeError } from "../../../src/drivers/kubernetes/client/index.js";
import { admin } from "../../harness/preprovisioned.js";
import { driverFor, passInput } from "./fixtures.js";
import { expectOwnershipRefusal, preparedForFile } from "./file-stacks.js";

const file = preparedForFile();

async function resourceVersion(name: string): Promise<string | undefined> {
  return (await admin().get("Namespace", { name })).metadata.resourceVersion;
}

describe("preprovisioned placement (Compute)", () => {
  it("the worker identity may not list namespaces (so the driver never does)", async () => {
    const err = await file.p.worker.list("Namespace").catch((e: unknown) => e);
    expect(isKubeError(err, "forbidden")).toBe(true);
  });

  it("inside the namespace the worker may only read the declared OpenShell resources: no write, escalate or bind on RBAC", () => {
    // `kubectl auth can-i -n <namespace>` as the worker: a SelfSubjectAccessReview answered by
    // the real RBAC authorizer from the grants of the preprovisioned chart (exit 0 yes, 1 no).
    const can = (verb: string, resource: string): boolean => {
      const res = spawnSync(
        ".tools/bin/kubectl",
        [
          "--kubeconfig",
          file.p.identities.worker.kubeconfig,
          "auth",
          "can-i",
          verb,
          resource,
          "-n",
          file.p.name,
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
      if (res.status !== 0 && res.status !== 1) throw new Error(res.stderr);
      return res.stdout.trim() === "yes";
    };
    for (const resource of ["roles", "rolebindings", "serviceaccounts", "networkpolicies"]) {
      expect(can("get", resource), `get ${resource}`).toBe(true);
    }
    for (const [verb, resource] of [
      ["create", "roles"],
      ["patch", "roles"],
      ["delete", "roles"],
      ["create", "rolebindings"],
      ["patch", "rolebindings"],
      ["delete", "rolebindings"],
      ["escalate", "roles"],
      ["bind", "roles"],
      ["bind", "clusterroles"],
    ] as const) {
      expect(can(verb, resource), `${verb} ${resource}`).toBe(false);
    }
  });

  it("a rendered namespace applied by the operator passes; quota, limit range and policies are created", async () => {
    const before = await resourceVersion(file.p.name);
    const result = await file.pass();
    expect(result).toEqual({
      outcome: "ready",
      uid: file.p.binding.uid,
      namespaceName: file.p.name,
    });
    expect(await resourceVersion(file.p.name)).toBe(before);
    const policies = await admin().list("NetworkPolicy", { namespace: file.p.name });
    expect(policies.map((x) => x.metadata.name).sort()).toEqual([
      "allow-dns",
      "allow-gateway-ingress",
      "default-deny",
      "openshell-sandbox-egress",
    ]);
    expect(
      await admin().find("ResourceQuota", { name: "openclaw-quota", namespace: file.p.name }),
    ).toBeDefined();
    expect(
      await admin().find("LimitRange", { name: "openclaw-limits", namespace: file.p.name }),
    ).toBeDefined();
    // A second pass writes nothing.
    const w = file.p.worker.counter.writes();
    expect((await file.pass()).outcome).toBe("ready");
    expect(file.p.worker.counter.writes()).toBe(w);
  });
});

/** A JSON merge patch of the namespace's metadata as the administrator, and its undo. */
async function mutateNamespace(
  name: string,
  kind: "labels" | "annotations",
  key: string,
  value: string | null,
): Promise<() => Promise<void>> {
  const ns = await admin().get("Namespace", { name });
  const previous =
    (kind === "labels" ? ns.metadata.labels : ns.metadata.annotations)?.[key] ?? null;
  await admin().patch(
    "Namespace",
    { name },
    { metadata: { [kind]: { [key]: value } } },
    { type: "merge" },
  );
  return async () => {
    await admin().patch(
      "Namespace",
      { name },
      { metadata: { [kind]: { [key]: previous } } },
      { type: "merge" },
    );
  };
}

describe("every row of the §3 table, violated in turn", () => {
  const rows: [string, "labels" | "annotations", string, string | null][] = [
    ["lifecycle annotation", "annotations", "openclaw.dev/namespace-lifecycle", "external"],
    ["namespace-id annotation", "annotations", "openclaw.dev/namespace-id", "ns_other"],
    ["manager label", "labels", "app.kubernetes.io/managed-by", "Helm"],
    ["tenant label", "labels", "openclaw.dev/namespace", "ns_other"],
    ["gateway-namespace label", "labels", "openclaw.dev/gateway-namespace", null],
    ["membership label", "labels", "openclaw-enterprise.io/gateway", "000000000000"],
    ["pod security enforce", "labels", "pod-security.kubernetes.io/enforce", "baseline"],
    ["pod security audit", "labels", "pod-security.kubernetes.io/audit", null],
    ["pod security warn", "labels", "pod-security.kubernetes.io/warn", "privileged"],
    ["OpenShell namespace label", "labels", "openshell.nvidia.com/workspace-mode", "sandbox"],
  ];

  it.each(rows)(
    "%s → permanent KUBERNETES_OWNERSHIP_CONFLICT, namespace unchanged",
    async (_, kind, key, value) => {
      const undo = await mutateNamespace(file.p.name, kind, key, value);
      try {
        const before = await resourceVersion(file.p.name);
        const result = await file.pass();
        expectOwnershipRefusal(result, PREPROVISIONED_MESSAGES.namespaceMismatch);
        expect(result.outcome === "failed" && result.reason).toContain(key);
        expect(await resourceVersion(file.p.name)).toBe(before);
      } finally {
        await undo();
      }
    },
  );

  it("a binding whose UID is not the namespace's → refused, namespace unchanged", async () => {
    const before = await resourceVersion(file.p.name);
    const wrong = { ...file.p.binding, uid: "00000000-0000-4000-8000-000000000000" };
    const result = await driverFor(file.p, [], wrong).ensureNamespace(passInput(file.p.id));
    expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
    expect(result.outcome === "failed" && result.reason).toContain(
      PREPROVISIONED_MESSAGES.namespaceMismatch,
    );
    expect(result.outcome === "failed" && result.reason).toContain("metadata.uid");
    expect(await resourceVersion(file.p.name)).toBe(before);
  });

  it("the namespace restored passes again", async () => {
    expect((await file.pass()).outcome).toBe("ready");
  });
});
