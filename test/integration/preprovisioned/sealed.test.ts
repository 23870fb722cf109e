import { describe, expect, it } from "vitest";
import {
  PREPROVISIONED_MESSAGES,
  networkPolicySpecsEquivalent,
  type NetworkPolicySpec,
} from "../../../src/domain/index.js";
import { uniqueName } from "../../harness/kube.js";
import { admin } from "../../harness/preprovisioned.js";
import { expectOwnershipRefusal, preparedForFile } from "./file-stacks.js";

const file = preparedForFile({ ready: true });

async function expectSealRefusal(): Promise<void> {
  expectOwnershipRefusal(await file.pass(), PREPROVISIONED_MESSAGES.sealedPolicies);
}

/** Patches a policy's spec as the administrator; returns the undo. */
async function patchPolicy(name: string, spec: NetworkPolicySpec): Promise<() => Promise<void>> {
  const ref = { name, namespace: file.p.name };
  const before = await admin().get("NetworkPolicy", ref);
  await admin().patch("NetworkPolicy", ref, [{ op: "replace", path: "/spec", value: spec }], {
    type: "json",
  });
  return async () => {
    await admin().patch(
      "NetworkPolicy",
      ref,
      [{ op: "replace", path: "/spec", value: before.spec }],
      { type: "json" },
    );
  };
}

describe("sealed NetworkPolicies", () => {
  it("an undeclared policy is refused", async () => {
    const name = uniqueName("allow-all");
    await admin().create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name, namespace: file.p.name },
      spec: { podSelector: {}, policyTypes: ["Ingress"], ingress: [{}] },
    });
    await expectSealRefusal();
    const created = await admin().get("NetworkPolicy", { name, namespace: file.p.name });
    await admin().delete(
      "NetworkPolicy",
      { name, namespace: file.p.name },
      { uid: created.metadata.uid ?? "" },
    );
    expect((await file.pass()).outcome).toBe("ready");
  });

  it("a changed Compute policy is refused, not overwritten", async () => {
    const undo = await patchPolicy("default-deny", {
      podSelector: { matchLabels: { only: "these" } },
      policyTypes: ["Ingress", "Egress"],
    });
    try {
      await expectSealRefusal();
      const live = await admin().get("NetworkPolicy", {
        name: "default-deny",
        namespace: file.p.name,
      });
      expect(live.spec?.podSelector).toEqual({ matchLabels: { only: "these" } });
    } finally {
      await undo();
    }
    expect((await file.pass()).outcome).toBe("ready");
  });

  it("a changed declared policy is refused", async () => {
    const live = await admin().get("NetworkPolicy", {
      name: "openshell-sandbox-egress",
      namespace: file.p.name,
    });
    const undo = await patchPolicy("openshell-sandbox-egress", {
      ...live.spec,
      egress: [{ ports: [{ protocol: "TCP", port: 8081 }] }],
    });
    try {
      await expectSealRefusal();
    } finally {
      await undo();
    }
    expect((await file.pass()).outcome).toBe("ready");
  });
});

describe("equivalence, proven against the real API server", () => {
  const selector = { matchLabels: { app: "x" } };
  const cases: [string, NetworkPolicySpec, NetworkPolicySpec, boolean][] = [
    [
      "declared egress: [] vs live (the server omits it)",
      { podSelector: selector, policyTypes: ["Egress"], egress: [] },
      { podSelector: selector, policyTypes: ["Egress"], egress: [] },
      true,
    ],
    [
      "declared [{}] vs applied []",
      { podSelector: selector, policyTypes: ["Egress"], egress: [{}] },
      { podSelector: selector, policyTypes: ["Egress"], egress: [] },
      false,
    ],
    [
      "declared [] vs applied [{}]",
      { podSelector: selector, policyTypes: ["Egress"], egress: [] },
      { podSelector: selector, policyTypes: ["Egress"], egress: [{}] },
      false,
    ],
    [
      "a port declared without protocol (the server defaults TCP)",
      { podSelector: selector, policyTypes: ["Ingress"], ingress: [{ ports: [{ port: 80 }] }] },
      { podSelector: selector, policyTypes: ["Ingress"], ingress: [{ ports: [{ port: 80 }] }] },
      true,
    ],
    [
      "egress: [] with Egress NOT in policyTypes (the server drops it; the seed: not equal)",
      { podSelector: selector, policyTypes: ["Ingress"], egress: [] },
      { podSelector: selector, policyTypes: ["Ingress"], egress: [] },
      false,
    ],
    [
      "ingress: [] with policyTypes omitted (defaulted is not explicit)",
      { podSelector: selector, ingress: [] },
      { podSelector: selector, ingress: [] },
      false,
    ],
    [
      "[{}] applied as [{}]",
      { podSelector: selector, policyTypes: ["Ingress"], ingress: [{}] },
      { podSelector: selector, policyTypes: ["Ingress"], ingress: [{}] },
      true,
    ],
    [
      "policyTypes omitted with egress rules (the server defaults Ingress+Egress)",
      { podSelector: selector, egress: [{ ports: [{ port: 53, protocol: "UDP" }] }] },
      { podSelector: selector, egress: [{ ports: [{ port: 53, protocol: "UDP" }] }] },
      true,
    ],
    [
      "an empty from list inside a rule (the server drops it)",
      {
        podSelector: selector,
        policyTypes: ["Ingress"],
        ingress: [{ from: [], ports: [{ port: 80 }] }],
      },
      {
        podSelector: selector,
        policyTypes: ["Ingress"],
        ingress: [{ from: [], ports: [{ port: 80 }] }],
      },
      true,
    ],
    [
      "a field the server does not know (it drops it; compared, so not equal)",
      { podSelector: selector, policyTypes: ["Ingress"], futureField: true } as NetworkPolicySpec,
      { podSelector: selector, policyTypes: ["Ingress"], futureField: true } as NetworkPolicySpec,
      false,
    ],
    [
      "a changed selector",
      { podSelector: selector, policyTypes: ["Ingress"] },
      { podSelector: { matchLabels: { app: "y" } }, policyTypes: ["Ingress"] },
      false,
    ],
  ];

  it.each(cases)("%s", async (_, declared, applied, equal) => {
    const name = uniqueName("eq");
    const ref = { name, namespace: file.p.name };
    const created = await admin().create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: ref,
      spec: applied,
    });
    try {
      const live = await admin().get("NetworkPolicy", ref);
      expect(networkPolicySpecsEquivalent(live.spec, declared)).toBe(equal);
      if (declared.egress?.length === 0 && equal) expect(live.spec?.egress).toBeUndefined();
      if (declared.ingress?.[0]?.ports?.[0] !== undefined && equal) {
        expect(live.spec?.ingress?.[0]?.ports?.[0]?.protocol).toBe("TCP");
      }
    } finally {
      await admin().delete("NetworkPolicy", ref, { uid: created.metadata.uid ?? "" });
    }
  });
});
