import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parse } from "yaml";
import { currentManagedName, type NetworkPolicy } from "../../../src/domain/index.js";
import { uniqueName } from "../../harness/kube.js";
import {
  admin,
  grantOperator,
  kubectl,
  preprovisionedIdentities,
  type PreprovisionedIdentities,
} from "../../harness/preprovisioned.js";
import { newBoundId, profileDocument } from "./fixtures.js";

/** Runs the real `occ` CLI as a child process; returns its exit code and output. */
function occ(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, ["bin/occ.js", ...args], {
    encoding: "utf8",
    env: { ...process.env, OCC_PREPROVISIONED_NAMESPACE: "" },
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

const id = newBoundId();
const name = currentManagedName(id);
let configFile: string;
let identities: PreprovisionedIdentities;

beforeAll(async () => {
  await grantOperator();
  identities = await preprovisionedIdentities(id);
  configFile = join(inject("env").runDir, `${uniqueName("pp-config")}.yaml`);
  await writeFile(configFile, JSON.stringify(profileDocument()));
});

const sa = (who: "worker" | "api") =>
  `${identities[who].subject.namespace ?? ""}/${identities[who].subject.name}`;

describe("occ preprovisioned", () => {
  let uid = "";
  const verify = () =>
    occ([
      "preprovisioned",
      "verify",
      "--namespace-id",
      id,
      "--uid",
      uid,
      "--config",
      configFile,
      "--kubeconfig",
      identities.worker.kubeconfig,
    ]);

  it("render → kubectl apply by the operator; values reads the UID; verify passes", () => {
    const rendered = occ([
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
    expect(rendered.code, rendered.stderr).toBe(0);
    kubectl("operator", ["apply", "-f", "-"], rendered.stdout);

    const values = occ([
      "preprovisioned",
      "values",
      "--namespace-id",
      id,
      "--config",
      configFile,
      "--kubeconfig",
      inject("env").kubeconfigs.operator,
    ]);
    expect(values.code, values.stderr).toBe(0);
    const block = parse(values.stdout) as {
      preprovisionedNamespace: { namespaceId: string; uid: string };
    };
    expect(block.preprovisionedNamespace.namespaceId).toBe(id);
    uid = block.preprovisionedNamespace.uid;
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);

    const ok = verify();
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain("passes every check");
  });

  it("three problems are all listed with their fixes, exit non-zero; fixed → exit 0", async () => {
    await admin().patch(
      "Namespace",
      { name },
      {
        metadata: {
          labels: { "pod-security.kubernetes.io/warn": "baseline" },
          annotations: { "openclaw.dev/namespace-lifecycle": null },
        },
      },
      { type: "merge" },
    );
    const policy = await admin().create<NetworkPolicy>("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "allow-everything", namespace: name },
      spec: { podSelector: {}, ingress: [{}] },
    });
    const failing = verify();
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("3 failing requirement(s)");
    expect(failing.stdout).toContain("label pod-security.kubernetes.io/warn=restricted");
    expect(failing.stdout).toContain("annotation openclaw.dev/namespace-lifecycle=preprovisioned");
    expect(failing.stdout).toContain("NetworkPolicy allow-everything");
    expect(failing.stdout.match(/fix: /g)).toHaveLength(3);

    await admin().patch(
      "Namespace",
      { name },
      {
        metadata: {
          labels: { "pod-security.kubernetes.io/warn": "restricted" },
          annotations: { "openclaw.dev/namespace-lifecycle": "preprovisioned" },
        },
      },
      { type: "merge" },
    );
    await admin().delete(
      "NetworkPolicy",
      { name: "allow-everything", namespace: name },
      { uid: policy.metadata.uid ?? "" },
    );
    const fixed = verify();
    expect(fixed.code, fixed.stdout).toBe(0);
  });

  it("render refuses a bad Namespace ID, naming the pattern", () => {
    const bad = occ([
      "preprovisioned",
      "render",
      "--namespace-id",
      "ns_bad.id",
      "--config",
      configFile,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("^ns_[a-zA-Z0-9_-]{1,60}$");
  });
});
