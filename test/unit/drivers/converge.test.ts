import { describe, expect, it } from "vitest";
import type { HasMetadata, WriteDecision } from "../../../src/domain/index.js";
import { KubeApiError } from "../../../src/drivers/kubernetes/client/index.js";
import { convergeObject, type ConvergeStep } from "../../../src/drivers/kubernetes/converge.js";

const alreadyExists = () =>
  new KubeApiError({
    verb: "create",
    path: "/api/v1/namespaces/t/configmaps",
    category: "conflict",
    status: 409,
    reason: "AlreadyExists",
    detail: "exists",
  });

/** A step whose decision is a lookup on what was observed; records every write. */
function step(
  observations: (HasMetadata | null)[],
  decide: (o: HasMetadata | null) => WriteDecision<string>,
  extra: Partial<ConvergeStep<HasMetadata, string>> = {},
) {
  const writes: string[] = [];
  const s: ConvergeStep<HasMetadata, string> = {
    observe: () => Promise.resolve(observations.shift() ?? null),
    decide,
    create: () => {
      writes.push("create");
      return Promise.resolve();
    },
    update: (rv) => {
      writes.push(`update@${rv ?? ""}`);
      return Promise.resolve();
    },
    ...extra,
  };
  return { s, writes };
}

const byPresence = (o: HasMetadata | null): WriteDecision<string> =>
  o === null ? { action: "create" } : { action: "none" };

describe("convergeObject performs the domain's decision and nothing else", () => {
  it.each([
    [{ action: "none" } as const, "unchanged", []],
    [{ action: "stop", result: "refused" } as const, "refused", []],
    [{ action: "update", resourceVersion: "9" } as const, "written", ["update@9"]],
    [{ action: "create" } as const, "written", ["create"]],
  ])("%j → %s", async (decision, result, writes) => {
    const t = step([null], () => decision);
    expect(await convergeObject(t.s)).toBe(result);
    expect(t.writes).toEqual(writes);
  });

  it("a lost create race with reread decides again on the winner's object, once", async () => {
    const t = step([null], byPresence, {
      create: () => Promise.reject(alreadyExists()),
      lostRace: { reread: () => Promise.resolve({ metadata: { name: "x" } }) },
    });
    expect(await convergeObject(t.s)).toBe("unchanged");
  });

  it("a second lost race after a reread propagates", async () => {
    const t = step([null], byPresence, {
      create: () => Promise.reject(alreadyExists()),
      lostRace: { reread: () => Promise.resolve(null) },
    });
    await expect(convergeObject(t.s)).rejects.toBeInstanceOf(KubeApiError);
  });

  it("a lost create race with a stop answers that outcome", async () => {
    const t = step([null], byPresence, {
      create: () => Promise.reject(alreadyExists()),
      lostRace: { stop: "raced" },
    });
    expect(await convergeObject(t.s)).toBe("raced");
  });

  it("without a race rule, or for any other error, the error propagates", async () => {
    const bare = step([null], byPresence, { create: () => Promise.reject(alreadyExists()) });
    await expect(convergeObject(bare.s)).rejects.toBeInstanceOf(KubeApiError);
    const other = step([null], byPresence, {
      create: () => Promise.reject(new Error("boom")),
      lostRace: { stop: "raced" },
    });
    await expect(convergeObject(other.s)).rejects.toThrow("boom");
  });
});
