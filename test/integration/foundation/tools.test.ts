import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { defaultBinDir } from "../../../src/devcluster/local-cluster.js";

const bin = defaultBinDir();
const kubeconfigs = inject("env").kubeconfigs;

function pinned(goMod: string, module: string): string {
  const line = readFileSync(goMod, "utf8")
    .split("\n")
    .find((l) => l.trim().startsWith(`${module} v`));
  if (line === undefined) throw new Error(`${module} not pinned in ${goMod}`);
  return line.trim().split(/\s+/)[1] ?? "";
}

/** The pinned kubectl run as one of the cluster's identities. */
const kubectlAs = (identity: keyof typeof kubeconfigs, ...args: string[]) =>
  spawnSync(join(bin, "kubectl"), ["--kubeconfig", kubeconfigs[identity], ...args]);

describe("the pinned real tools", () => {
  it("kubectl with a per-identity kubeconfig talks to the API server of the pinned release", () => {
    const res = kubectlAs("admin", "version", "-o", "json");
    expect(res.status, res.stderr.toString()).toBe(0);
    const v = JSON.parse(res.stdout.toString()) as { serverVersion: { gitVersion: string } };
    expect(v.serverVersion.gitVersion).toBe(pinned("tools/k8s/go.mod", "k8s.io/kubernetes"));
  });

  it("an identity without grants is refused (RBAC is really enforced)", () => {
    const res = kubectlAs("nobody", "get", "namespaces");
    expect(res.status).not.toBe(0);
    expect(res.stderr.toString()).toMatch(/Forbidden.*"nobody" cannot list resource "namespaces"/);
  });

  it("helm is the pinned version", () => {
    const out = execFileSync(join(bin, "helm"), ["version", "--short"]).toString();
    expect(out.trim()).toMatch(
      new RegExp(`^${pinned("tools/helm/go.mod", "helm.sh/helm/v3")}\\+?`),
    );
  });
});
