import { describe, expect, it } from "vitest";
import { isActiveNamespace, isTerminating } from "../../../src/domain/index.js";
import { namespace } from "./fixtures.js";

describe("namespace state helpers", () => {
  it.each([
    ["Active", {}, true, false],
    ["Active with deletionTimestamp", { deletionTimestamp: "2026-01-01T00:00:00Z" }, false, true],
    ["Terminating", { phase: "Terminating" }, false, false],
    ["no phase", { phase: "" }, false, false],
  ])("%s → active %s, terminating %s", (_case, shape, active, terminating) => {
    const ns = namespace(shape);
    expect(isActiveNamespace(ns)).toBe(active);
    expect(isTerminating(ns)).toBe(terminating);
  });

  it("a Date deletion timestamp (client objects) counts as terminating", () => {
    expect(isTerminating({ metadata: { deletionTimestamp: new Date(0) } })).toBe(true);
    expect(isActiveNamespace({ status: { phase: "Active" } })).toBe(true);
    expect(isActiveNamespace({})).toBe(false);
  });
});
