import { describe, expect, it } from "vitest";
import { decideWrite, type HasMetadata, type WriteRules } from "../../../src/domain/index.js";

const OURS = { "openclaw.dev/namespace": "ns_1" };
const rules = (over: Partial<WriteRules<HasMetadata, string>> = {}) =>
  ({
    owned: (o: HasMetadata) => o.metadata?.labels?.["openclaw.dev/namespace"] === "ns_1",
    notOwned: "not-owned",
    terminating: "terminating",
    differs: (o: HasMetadata) => o.metadata?.annotations?.["spec"] !== "want",
    ...over,
  }) satisfies WriteRules<HasMetadata, string>;

/** The same rules without a terminating rule: a terminating object is compared like any other. */
const withoutTerminating = (): WriteRules<HasMetadata, string> => {
  const { owned, notOwned, differs } = rules();
  return { owned, notOwned, differs };
};

const object = (o: { owned: boolean; terminating: boolean; same: boolean }): HasMetadata => ({
  metadata: {
    name: "x",
    resourceVersion: "7",
    labels: o.owned ? OURS : { other: "y" },
    annotations: { spec: o.same ? "want" : "old" },
    ...(o.terminating ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  },
});

describe("decideWrite: every combination, in the one order of questions", () => {
  it("absent → create, whatever the rules", () => {
    expect(decideWrite(null, rules())).toEqual({ action: "create" });
    expect(decideWrite(null, withoutTerminating())).toEqual({ action: "create" });
  });

  // owned, terminating, same → expected decision (with and without a terminating rule).
  const table: readonly [boolean, boolean, boolean, string, string][] = [
    [false, false, false, "stop:not-owned", "stop:not-owned"],
    [false, false, true, "stop:not-owned", "stop:not-owned"],
    [false, true, false, "stop:not-owned", "stop:not-owned"],
    [false, true, true, "stop:not-owned", "stop:not-owned"],
    [true, true, false, "stop:terminating", "update:7"],
    [true, true, true, "stop:terminating", "none"],
    [true, false, false, "update:7", "update:7"],
    [true, false, true, "none", "none"],
  ];
  const show = (d: ReturnType<typeof decideWrite<HasMetadata, string>>): string =>
    d.action === "stop"
      ? `stop:${d.result}`
      : d.action === "update"
        ? `update:${d.resourceVersion ?? ""}`
        : d.action;

  for (const [owned, terminating, same, withRule, withoutRule] of table) {
    it(`owned=${owned} terminating=${terminating} same=${same} → ${withRule} / ${withoutRule}`, () => {
      const observed = object({ owned, terminating, same });
      expect(show(decideWrite(observed, rules()))).toBe(withRule);
      expect(show(decideWrite(observed, withoutTerminating()))).toBe(withoutRule);
    });
  }

  it("never asks whether a foreign object differs (it is not ours to compare)", () => {
    let asked = false;
    const decision = decideWrite(object({ owned: false, terminating: false, same: false }), {
      ...rules(),
      differs: () => {
        asked = true;
        return true;
      },
    });
    expect(decision).toEqual({ action: "stop", result: "not-owned" });
    expect(asked).toBe(false);
  });
});
