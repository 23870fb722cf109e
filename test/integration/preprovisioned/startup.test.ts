import { beforeAll, describe, expect, it } from "vitest";
import { writeRunConfig } from "../../harness/run-files.js";
import { admin } from "../../harness/preprovisioned.js";
import {
  migratedPglite,
  newBoundId,
  occ,
  prepare,
  type Prepared,
  profileDocument,
} from "./fixtures.js";

const EXACT =
  "A preprovisioned Namespace requires single-cluster bundled Kubernetes and OpenShell Drivers with Credential Proxy and gateway routing.";

const configFile = (doc: Record<string, unknown>) => writeRunConfig("startup", doc);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";
const BINDING = JSON.stringify({ namespaceId: "ns_example", uid: UID });

describe("startup of occ api and occ worker in the preprovisioned profile", () => {
  const base = profileDocument();
  const missing: [string, Record<string, unknown>, string][] = [
    [
      "no Credential Proxy",
      { ...base, network: { ...(base.network as object), egressAuthority: null } },
      "network.egressAuthority",
    ],
    [
      "no gateway routing",
      { ...base, network: { ...(base.network as object), gatewayRouting: null } },
      "network.gatewayRouting",
    ],
    [
      "an execution cluster",
      { ...base, executionCluster: { enabled: true } },
      "executionCluster.enabled",
    ],
    ["no OpenShell Sandbox Driver", { ...base, drivers: { sandbox: "none" } }, "drivers.sandbox"],
    [
      "an installed Compute Driver",
      { ...base, drivers: { sandbox: "openshell", compute: { module: "./x.js" } } },
      "drivers.compute",
    ],
    [
      "an installed Configuration Driver",
      { ...base, drivers: { sandbox: "openshell", configuration: { module: "./x.js" } } },
      "drivers.configuration",
    ],
    [
      "drivers.sandbox: openshell without an openshell block",
      { ...base, openshell: undefined },
      "openshell",
    ],
  ];

  it.each(missing)(
    "%s → both processes stop with the seed's exact sentence, then the key",
    async (_, doc, key) => {
      const file = await configFile(doc);
      for (const command of ["api", "worker"]) {
        const res = occ(
          [command, "--config", file, "--database-url", "postgres://unused.invalid/x"],
          { OCC_PREPROVISIONED_NAMESPACE: BINDING },
        );
        expect(res.status).toBe(1);
        expect(res.stderr.trim()).toMatch(
          new RegExp(`^occ: ${escape(EXACT)} Not met: ${escape(key)} \\(needs [^;]*\\)\\.$`),
        );
      }
    },
  );

  it.each([
    ["bad JSON", "{nope", "not valid JSON"],
    [
      "an extra key",
      JSON.stringify({ namespaceId: "ns_example", uid: UID, extra: 1 }),
      "OCC_PREPROVISIONED_NAMESPACE.extra is not allowed",
    ],
    [
      "an uppercase UID",
      JSON.stringify({ namespaceId: "ns_example", uid: UID.toUpperCase() }),
      "uppercase",
    ],
    [
      "a bad ID",
      JSON.stringify({ namespaceId: "example", uid: UID }),
      "namespaceId must match ^ns_[a-zA-Z0-9_-]{1,60}$",
    ],
  ])(
    "a malformed OCC_PREPROVISIONED_NAMESPACE (%s) names the problem",
    async (_, raw, expected) => {
      const file = await configFile(base);
      const res = occ(
        ["worker", "--config", file, "--database-url", "postgres://unused.invalid/x"],
        {
          OCC_PREPROVISIONED_NAMESPACE: raw,
        },
      );
      expect(res.status).toBe(1);
      expect(res.stderr).toContain(expected);
    },
  );

  it("without a binding, executionCluster.enabled: true is refused", async () => {
    const file = await configFile({ executionCluster: { enabled: true } });
    const res = occ(["api", "--config", file, "--database-url", "postgres://unused.invalid/x"], {
      OCC_PREPROVISIONED_NAMESPACE: "",
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain("executionCluster.enabled: true is not supported");
  });
});

describe("the worker's startup verification", () => {
  let p: Prepared;
  beforeAll(async () => {
    p = await prepare();
  });

  it("lists every mismatching requirement and stops", async () => {
    await admin().patch(
      "Namespace",
      { name: p.name },
      {
        metadata: {
          labels: {
            "openclaw-enterprise.io/gateway": "000000000000",
            "pod-security.kubernetes.io/audit": null,
          },
          annotations: { "openclaw.dev/namespace-id": "ns_someone-else" },
        },
      },
      { type: "merge" },
    );
    const base = profileDocument();
    const file = await configFile({
      ...base,
      kubernetes: { kubeconfig: p.identities.worker.kubeconfig },
    });
    const dir = await migratedPglite(p.id);
    const res = occ(["worker", "--config", file, "--pglite", dir, "--metrics-port", "0"], {
      OCC_PREPROVISIONED_NAMESPACE: JSON.stringify(p.binding),
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(
      "Preprovisioned Kubernetes Namespace identity, ownership, gateway membership, Pod Security or lifecycle does not match the Installation.",
    );
    expect(res.stderr).toContain("annotation openclaw.dev/namespace-id");
    expect(res.stderr).toContain("label openclaw-enterprise.io/gateway");
    expect(res.stderr).toContain("label pod-security.kubernetes.io/audit");
  });
});

describe("a binding whose Namespace ID is not in the database (a mistyped ID)", () => {
  const typo = newBoundId();
  const bindingOf = (namespaceId: string) => JSON.stringify({ namespaceId, uid: UID });

  it("occ api and occ worker stop, naming the ID, the Namespaces that exist and the fix", async () => {
    const real = newBoundId();
    const other = newBoundId();
    const dir = await migratedPglite(real, other);
    const file = await configFile(profileDocument());
    for (const command of ["api", "worker"]) {
      const extra = command === "api" ? ["--port", "0"] : ["--metrics-port", "0"];
      const res = occ([command, "--config", file, "--pglite", dir, ...extra], {
        OCC_PREPROVISIONED_NAMESPACE: bindingOf(typo),
      });
      expect(res.status, res.stdout + res.stderr).toBe(1);
      expect(res.stderr).toContain(
        `names Namespace ${typo}, which does not exist in this database (a mistyped ID is never placed)`,
      );
      expect(res.stderr).toContain(
        `The Namespaces in this database: ${real} (default), ${other} (tenant-1).`,
      );
      expect(res.stderr).toContain("Set preprovisionedNamespace.namespaceId to the ID");
      expect(res.stderr).toContain("occ namespaces list");
    }
  });

  it("an empty database: run occ bootstrap", async () => {
    const dir = await migratedPglite();
    const file = await configFile(profileDocument());
    const res = occ(["worker", "--config", file, "--pglite", dir, "--metrics-port", "0"], {
      OCC_PREPROVISIONED_NAMESPACE: bindingOf(typo),
    });
    expect(res.status, res.stdout + res.stderr).toBe(1);
    expect(res.stderr).toContain(`names Namespace ${typo}, which does not exist in this database`);
    expect(res.stderr).toContain("This database has no Namespace: run occ bootstrap");
  });
});
