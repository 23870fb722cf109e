import { describe, expect, it } from "vitest";
import {
  OwnWrites,
  isOwnEcho,
  versionKey,
  type ObjectVersion,
} from "../../../src/drivers/kubernetes/watch/own-writes.js";

const policy = (resourceVersion: string, name = "default-deny"): ObjectVersion => ({
  kind: "NetworkPolicy",
  namespace: "occ-a",
  name,
  resourceVersion,
});

describe("isOwnEcho: is a watch event the echo of our own write?", () => {
  const written = new Set([versionKey(policy("10"))]);
  it.each([
    ["the exact version our write returned", policy("10"), true],
    ["a later version of the same object (a foreign change after ours)", policy("11"), false],
    ["an earlier version of the same object", policy("9"), false],
    ["the same version number on another object", policy("10", "allow-dns"), false],
    ["the same name and version in another namespace", { ...policy("10"), namespace: "b" }, false],
    ["the same name and version of another kind", { ...policy("10"), kind: "LimitRange" }, false],
    ["a delete or a relist difference (no version)", null, false],
  ] as const)("%s → %s", (_what, event, echo) => {
    expect(isOwnEcho(event, written)).toBe(echo);
  });

  it("nothing written: nothing is an echo", () => {
    expect(isOwnEcho(policy("10"), new Set())).toBe(false);
  });
});

describe("OwnWrites", () => {
  it("suppresses each recorded version once, and only that version", () => {
    const own = new OwnWrites();
    own.record(policy("10"));
    own.record({ kind: "Namespace", namespace: "", name: "occ-a", resourceVersion: "7" });
    expect(own.consume(policy("11"))).toBe(false); // a foreign change: news
    expect(own.consume(policy("10"))).toBe(true);
    expect(own.consume(policy("10"))).toBe(false); // the same version twice is not ours twice
    expect(
      own.consume({ kind: "Namespace", namespace: "", name: "occ-a", resourceVersion: "7" }),
    ).toBe(true);
    expect(own.size).toBe(0);
  });

  it("two writes of one object: both echoes are suppressed, a foreign version between is not", () => {
    const own = new OwnWrites();
    own.record(policy("10"));
    own.record(policy("12"));
    expect(own.consume(policy("10"))).toBe(true);
    expect(own.consume(policy("11"))).toBe(false);
    expect(own.consume(policy("12"))).toBe(true);
  });

  it("forgets a version whose event never came after ttlMs (a write that changed nothing)", () => {
    let now = 0;
    const own = new OwnWrites({ ttlMs: 1_000, now: () => now });
    own.record(policy("10"));
    now = 999;
    own.record(policy("20", "other"));
    now = 1_000;
    expect(own.consume(policy("10"))).toBe(false);
    expect(own.size).toBe(1);
    expect(own.consume(policy("20", "other"))).toBe(true);
  });

  it("holds at most `max` versions, forgetting the oldest (an extra pass, never a missed one)", () => {
    const own = new OwnWrites({ max: 2 });
    own.record(policy("1", "a"));
    own.record(policy("2", "b"));
    own.record(policy("3", "c"));
    expect(own.size).toBe(2);
    expect(own.consume(policy("1", "a"))).toBe(false);
    expect(own.consume(policy("2", "b"))).toBe(true);
    expect(own.consume(policy("3", "c"))).toBe(true);
  });
});
