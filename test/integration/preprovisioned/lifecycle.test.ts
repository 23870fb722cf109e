import { describe, expect, it } from "vitest";
import { PREPROVISIONED_MESSAGES } from "../../../src/domain/index.js";
import { admin } from "../../harness/preprovisioned.js";
import { driverFor, newBoundId, passInput, prepare } from "./fixtures.js";
import { closePrepared, preparedForFile } from "./file-stacks.js";

const file = preparedForFile({ ready: true });

describe("the one bound namespace", () => {
  it("deletion is refused with the seed's message and the namespace stays", async () => {
    const result = await driverFor(file.p).deleteNamespace(passInput(file.p.id));
    expect(result).toEqual({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      reason: PREPROVISIONED_MESSAGES.deletion,
      retryable: false,
    });
    expect(await admin().find("Namespace", { name: file.p.name })).toBeDefined();
    expect(
      await admin().find("ResourceQuota", { name: "openclaw-quota", namespace: file.p.name }),
    ).toBeDefined();
  });

  it("a second platform Namespace fails permanently, with no Kubernetes request", async () => {
    const before = file.p.worker.counter.total();
    const result = await driverFor(file.p).ensureNamespace(passInput(newBoundId()));
    expect(result).toEqual({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      reason: PREPROVISIONED_MESSAGES.otherNamespace,
      retryable: false,
    });
    expect(file.p.worker.counter.total()).toBe(before);
  });

  it("a Namespace selecting an existing namespace fails permanently (the bound ID included)", async () => {
    for (const id of [newBoundId(), file.p.id]) {
      const result = await driverFor(file.p).ensureNamespace(
        passInput(id, { mode: "external", existingNamespace: file.p.name }),
      );
      expect(result).toEqual({
        outcome: "failed",
        code: "KUBERNETES_OWNERSHIP_CONFLICT",
        reason: PREPROVISIONED_MESSAGES.existingNamespace,
        retryable: false,
      });
    }
  });

  it("deleting such a never-placed Namespace is done with no request", async () => {
    const before = file.p.worker.counter.total();
    expect(await driverFor(file.p).deleteNamespace(passInput(newBoundId()))).toEqual({
      outcome: "deleted",
    });
    expect(file.p.worker.counter.total()).toBe(before);
  });
});

describe("a terminating namespace", () => {
  it("is refused with the seed's message and left as it is", async () => {
    const t = await prepare();
    try {
      await admin().patch(
        "Namespace",
        { name: t.name },
        { metadata: { finalizers: ["occ.test/hold"] } },
        { type: "merge" },
      );
      await admin().delete("Namespace", { name: t.name }, { uid: t.binding.uid });
      const before = (await admin().get("Namespace", { name: t.name })).metadata.resourceVersion;
      const result = await driverFor(t).ensureNamespace(passInput(t.id));
      expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
      expect(result.outcome === "failed" && result.reason).toContain(
        PREPROVISIONED_MESSAGES.namespaceMismatch,
      );
      expect(result.outcome === "failed" && result.reason).toContain("terminating");
      const after = await admin().get("Namespace", { name: t.name });
      expect(after.metadata.resourceVersion).toBe(before);
    } finally {
      await admin().patch(
        "Namespace",
        { name: t.name },
        { metadata: { finalizers: null } },
        { type: "merge" },
      );
      closePrepared(t);
    }
  });
});
