import { describe, expect, it } from "vitest";
import { OPENSHELL_GIT_UNSUPPORTED } from "../../../src/config/chart-values.js";
import { CI_VALUES, helmTemplate } from "../../harness/helm.js";

/**
 * preprovisioned.md §6: each refusal of the profile fails `helm template` with a message naming
 * the key. Each case also renders without the profile (or with the valid value), so it is the
 * profile's rule that refuses, not some other mistake in the case's values.
 */
async function refusal(values: Record<string, unknown>): Promise<string> {
  const run = await helmTemplate({ valuesFiles: [CI_VALUES.preprovisioned], values });
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe("");
  return run.stderr;
}

async function rendersWithoutProfile(values: Record<string, unknown>): Promise<void> {
  const run = await helmTemplate({
    valuesFiles: [CI_VALUES.preprovisioned],
    values: { ...values, preprovisionedNamespace: null },
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}

const ns = (fields: Record<string, unknown>) => ({ preprovisionedNamespace: fields });

describe("the preprovisioned profile's refusals (helm fails, naming the key)", () => {
  it("the ci values render (the baseline every refusal changes one key of)", async () => {
    const run = await helmTemplate({ valuesFiles: [CI_VALUES.preprovisioned] });
    expect(run.code).toBe(0);
  });

  it("a key other than namespaceId and uid", async () => {
    const stderr = await refusal(ns({ owner: "team-a" }));
    expect(stderr).toContain("preprovisionedNamespace.owner is not allowed");
  });

  it("a missing uid", async () => {
    // null removes the key from the ci file's map (helm's rule for null overrides).
    const stderr = await refusal(ns({ uid: null }));
    expect(stderr).toContain("preprovisionedNamespace.uid must be a lowercase UUID");
  });

  for (const badId of [
    "example",
    "ns_",
    `ns_${"a".repeat(61)}`,
    "ns_a b",
    "ns_a.b",
    "NS_example",
    "ns_example\n",
  ]) {
    it(`a bad ID: ${JSON.stringify(badId)}`, async () => {
      const stderr = await refusal(ns({ namespaceId: badId }));
      expect(stderr).toContain(
        "preprovisionedNamespace.namespaceId must match ^ns_[a-zA-Z0-9_-]{1,60}$",
      );
    });
  }

  it("an ID of the wrong type (a number)", async () => {
    const stderr = await refusal(ns({ namespaceId: 42 }));
    expect(stderr).toContain("preprovisionedNamespace.namespaceId");
  });

  it("an uppercase UID", async () => {
    const stderr = await refusal(ns({ uid: "0F4C2A9E-6B1D-4C3E-9A7F-2D5E8B1C4A60" }));
    expect(stderr).toContain("preprovisionedNamespace.uid must be a lowercase UUID");
    expect(stderr).toContain("uppercase");
  });

  for (const badUid of [
    "not-a-uuid",
    "0f4c2a9e6b1d4c3e9a7f2d5e8b1c4a60",
    "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a6",
    "{0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60}",
    " 0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60",
  ]) {
    it(`a malformed UID: ${JSON.stringify(badUid)}`, async () => {
      const stderr = await refusal(ns({ uid: badUid }));
      expect(stderr).toContain("preprovisionedNamespace.uid must be a lowercase UUID");
      expect(stderr).not.toContain("uppercase");
    });
  }

  it("executionCluster.enabled: true", async () => {
    const stderr = await refusal({ executionCluster: { enabled: true } });
    expect(stderr).toContain("preprovisionedNamespace requires executionCluster.enabled: false");
  });

  it("gatewayRouting.enabled: false", async () => {
    const values = { gatewayRouting: { enabled: false } };
    expect(await refusal(values)).toContain(
      "preprovisionedNamespace requires gatewayRouting.enabled: true",
    );
    await rendersWithoutProfile(values);
  });

  for (const serviceType of ["LoadBalancer", "NodePort"]) {
    it(`gatewayRouting.serviceType: ${serviceType}`, async () => {
      const values = { gatewayRouting: { serviceType } };
      expect(await refusal(values)).toContain(
        `preprovisionedNamespace requires gatewayRouting.serviceType: ClusterIP (not ${serviceType})`,
      );
      await rendersWithoutProfile(values);
    });
  }

  it("egressAuthority.enabled: false: names both of the seed's keys and says openshellGit is not supported", async () => {
    const values = { egressAuthority: { enabled: false } };
    expect(await refusal(values)).toContain(
      "preprovisionedNamespace requires egressAuthority.enabled: true or openshellGit.enabled: true; openshellGit is not supported by this release (OCC has no OpenShell Git transport), so set egressAuthority.enabled: true (the Credential Proxy)",
    );
    await rendersWithoutProfile(values);
  });

  it("openshell.enabled: false (no OpenShell backend)", async () => {
    const values = { openshell: { enabled: false } };
    expect(await refusal(values)).toContain(
      "preprovisionedNamespace requires openshell.enabled: true",
    );
    await rendersWithoutProfile(values);
  });

  it("openshellGit.enabled: false (the seed's key, written out) installs", async () => {
    const run = await helmTemplate({
      valuesFiles: [CI_VALUES.preprovisioned],
      values: { openshellGit: { enabled: false } },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("openshellGit.enabled: true instead of the Credential Proxy: refused, naming both keys", async () => {
    const stderr = await refusal({
      openshellGit: { enabled: true },
      egressAuthority: { enabled: false },
    });
    expect(stderr).toContain(
      "preprovisionedNamespace requires egressAuthority.enabled: true or openshellGit.enabled: true; openshellGit is not supported by this release",
    );
  });

  it("openshellGit.enabled: true beside the Credential Proxy: refused as unsupported", async () => {
    const stderr = await refusal({ openshellGit: { enabled: true } });
    expect(stderr).toContain(OPENSHELL_GIT_UNSUPPORTED);
  });

  // The seed's sign-in conditions (auth.*, agentNativeAdmin) are refused in sign-in.test.ts.
});

describe("rules of the normal profile", () => {
  it("executionCluster.enabled: true is refused in the normal profile too", async () => {
    const run = await helmTemplate({ values: { executionCluster: { enabled: true } } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("executionCluster.enabled: true is not supported by this release");
  });

  it("openshellGit.enabled: true is refused in the normal profile too; false renders", async () => {
    const run = await helmTemplate({ values: { openshellGit: { enabled: true } } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(OPENSHELL_GIT_UNSUPPORTED);
    const off = await helmTemplate({ values: { openshellGit: { enabled: false } } });
    expect(off.stderr).toBe("");
    expect(off.code).toBe(0);
  });

  it("openshell.enabled without an endpoint names openshell.endpoint", async () => {
    const run = await helmTemplate({ values: { openshell: { enabled: true } } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("openshell.endpoint is required");
  });

  it("a declared NetworkPolicy with an empty list for a direction policyTypes does not list", async () => {
    // The Installation configuration refuses it with the same key (openshell-settings.ts), so
    // helm must not install what the processes would then refuse to start with.
    const declared = (spec: Record<string, unknown>) => ({
      openshell: {
        gateway: {
          networkPolicyResources: [
            {
              apiVersion: "networking.k8s.io/v1",
              kind: "NetworkPolicy",
              metadata: { name: "allow-sandbox" },
              spec: { podSelector: {}, ...spec },
            },
          ],
        },
      },
    });
    const run = await helmTemplate({
      valuesFiles: [CI_VALUES.preprovisioned],
      values: declared({ policyTypes: ["Ingress"], egress: [] }),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "openshell.gateway.networkPolicyResources[0].spec.egress is an empty list but openshell.gateway.networkPolicyResources[0].spec.policyTypes does not list Egress: the API server stores it as absent, so the declaration can never match; remove egress, or add Egress to policyTypes",
    );
    for (const spec of [
      { policyTypes: ["Ingress", "Egress"], egress: [] },
      { policyTypes: ["Ingress"] },
    ]) {
      const ok = await helmTemplate({
        valuesFiles: [CI_VALUES.preprovisioned],
        values: declared(spec),
      });
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
    }
  });

  it("an unquoted quota quantity is refused by the schema, naming the key", async () => {
    const run = await helmTemplate({ values: { tenantResources: { quota: { pods: 50 } } } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("/tenantResources/quota/pods");
  });
});
