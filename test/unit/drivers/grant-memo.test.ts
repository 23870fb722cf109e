import { describe, expect, it } from "vitest";
import {
  EVERY_NAMESPACE,
  GRANT_MEMO_MS,
  GrantMemo,
} from "../../../src/drivers/kubernetes/compute/tenant-permission.js";

describe("GrantMemo: an allowed access review is kept for a bounded time, per namespace", () => {
  it.each([
    ["never reviewed", [] as const, 0, false],
    ["allowed just now", ["remember"] as const, 0, true],
    ["allowed, just before the bound", ["remember"] as const, GRANT_MEMO_MS - 1, true],
    ["allowed, at the bound", ["remember"] as const, GRANT_MEMO_MS, false],
    ["allowed, then a tenant RoleBinding seen", ["remember", "forget"] as const, 0, false],
  ])("%s → %s", (_name, steps, later, expected) => {
    let t = 1_000;
    const memo = new GrantMemo(() => t);
    for (const step of steps) {
      if (step === "remember") memo.remember("ns-a", true);
      else memo.forget("ns-a");
    }
    t += later;
    expect(memo.answer("ns-a") === true).toBe(expected);
    expect(memo.answer("ns-b") === true).toBe(false);
  });

  it.each([
    ["never asked", null, 0, undefined],
    ["allowed everywhere just now", true, 0, true],
    ["denied everywhere just now (each namespace is then asked)", false, 0, false],
    ["allowed everywhere, at the bound", true, GRANT_MEMO_MS, undefined],
  ] as const)("cluster-wide: %s → %s", (_name, answer, later, expected) => {
    let t = 1_000;
    const memo = new GrantMemo(() => t);
    if (answer !== null) memo.remember(EVERY_NAMESPACE, answer);
    t += later;
    expect(memo.answer(EVERY_NAMESPACE)).toBe(expected);
    expect(memo.answer("ns-a") === true).toBe(false);
  });
});
