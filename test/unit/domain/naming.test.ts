import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  currentManagedName,
  gatewayMembership,
  h,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelKey,
  isLabelValue,
  managedNameForm,
  previousManagedName,
} from "../../../src/domain/index.js";

// placement.md §1 — these vectors MUST appear verbatim.
const VECTORS = [
  {
    id: "ns_00000000-0000-4000-8000-000000000001",
    current: "oce-89d99db2f971e50",
    previous: "oce-ns-00000000-0000-4000-8000-000000000001-89d99db2f971",
  },
  { id: "ns_example", current: "oce-52be956b5de4b1b", previous: "oce-ns-example-52be956b5de4" },
  { id: "---", current: "oce-cb3f91d54eee30e", previous: "oce-ns-cb3f91d54eee" },
  {
    id: "Very_Long.Namespace/With Mixed_CASE_and punctuation that truncates before hash suffix 1234567890",
    current: "oce-13352a1af7c0b0a",
    previous: "oce-very-long-namespace-with-mixed-case-and-punctu-13352a1af7c0",
  },
] as const;

describe("placement.md §1 test vectors", () => {
  it.each(VECTORS)("$id", ({ id, current, previous }) => {
    expect(currentManagedName(id)).toBe(current);
    expect(previousManagedName(id)).toBe(previous);
    expect(managedNameForm(current, id)).toBe("current");
    expect(managedNameForm(previous, id)).toBe("previous");
  });

  it("gateway membership of openclaw-system/oce-agent-gateways is 20ec97c41b82", () => {
    expect(gatewayMembership("openclaw-system", "oce-agent-gateways")).toBe("20ec97c41b82");
  });
});

describe("h", () => {
  it("is the SHA-256 hex prefix over UTF-8 bytes", () => {
    // sha256("") = e3b0c442…, sha256("abc") = ba7816bf…
    expect(h("", 8)).toBe("e3b0c442");
    expect(h("abc", 16)).toBe("ba7816bf8f01cfea");
    expect(h("abc", 64)).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(h("abc", 0)).toBe("");
    // Precomposed and decomposed "é" are different byte sequences, hence different hashes.
    expect(h("é", 12)).toBe(h("\u00e9", 12));
    expect(h("é", 12)).not.toBe(h("e\u0301", 12));
  });

  it("does not trim or case-fold", () => {
    expect(h(" ns_example", 15)).not.toBe(h("ns_example", 15));
    expect(h("NS_EXAMPLE", 15)).not.toBe(h("ns_example", 15));
  });

  it.each([-1, 65, 1.5, Number.NaN])("rejects n = %s", (n) => {
    expect(() => h("x", n)).toThrow(RangeError);
  });
});

describe("managedNameForm", () => {
  it("recognises neither form for unrelated names and other tenants' names", () => {
    expect(managedNameForm("customer-support-prod", "ns_example")).toBeNull();
    expect(managedNameForm(currentManagedName("ns_other"), "ns_example")).toBeNull();
    expect(managedNameForm(previousManagedName("ns_other"), "ns_example")).toBeNull();
  });
});

describe("previous name slug rules", () => {
  it.each([
    ["ns_ABC", "oce-ns-abc-"],
    ["__a__b__", "oce-a-b-"],
    ["a--b", "oce-a--b-"],
    ["日本語", "oce-ns-"],
    ["x".repeat(100), `oce-${"x".repeat(46)}-`],
    [`${"a".repeat(45)}_b`, `oce-${"a".repeat(45)}-`],
  ])("%j → %s<hash12>", (id, prefix) => {
    const name = previousManagedName(id);
    expect(name).toBe(prefix + h(id, 12));
  });
});

/** Each `[value, expected]`: `check(value)` is `expected` (a case named `check(value) = expected`). */
function answers(check: (value: string) => boolean, rows: [string, boolean][]): void {
  it.each(rows)(`${check.name}(%j) = %s`, (value, expected) => {
    expect(check(value)).toBe(expected);
  });
}

describe("name syntax", () => {
  answers(isDns1123Label, [
    ["a", true],
    ["a-b", true],
    ["0abc", true],
    ["a".repeat(63), true],
    ["a".repeat(64), false],
    ["-a", false],
    ["a-", false],
    ["A", false],
    ["a.b", false],
    ["", false],
  ]);

  answers(isDns1123Subdomain, [
    ["a.b", true],
    ["a..b", false],
    [`${"a".repeat(63)}.${"b".repeat(63)}`, true],
  ]);

  answers(isLabelKey, [
    ["app", true],
    ["app.kubernetes.io/managed-by", true],
    ["openclaw.dev/namespace", true],
    ["k8s-app", true],
    ["Upper_Case.ok", true],
    ["/name", false],
    ["Bad_Prefix/name", false],
    ["prefix/", false],
    ["a/b/c", false],
    ["-x", false],
  ]);

  answers(isLabelValue, [
    ["", true],
    ["restricted", true],
    ["ns_00000000-0000-4000-8000-000000000001", true],
    ["a".repeat(64), false],
    ["with space", false],
    ["-lead", false],
  ]);
});

describe("properties", () => {
  const anyId = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 120 }),
    fc.string({ unit: "binary", maxLength: 120 }),
    fc.string({ maxLength: 120 }),
  );

  it("every derived name is a DNS-1123 label of at most 63 characters", () => {
    fc.assert(
      fc.property(anyId, (id) => {
        for (const name of [currentManagedName(id), previousManagedName(id)]) {
          expect(name.length).toBeLessThanOrEqual(63);
          expect(isDns1123Label(name)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("the current name is always 19 characters: oce- + 15 hex", () => {
    fc.assert(
      fc.property(anyId, (id) => {
        expect(currentManagedName(id)).toMatch(/^oce-[0-9a-f]{15}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it("the previous name ends with -h(id, 12)", () => {
    fc.assert(
      fc.property(anyId, (id) => {
        expect(previousManagedName(id).endsWith(`-${h(id, 12)}`)).toBe(true);
      }),
    );
  });

  it("gateway membership is 12 lowercase hex characters", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (namespace, name) => {
        expect(gatewayMembership(namespace, name)).toMatch(/^[0-9a-f]{12}$/);
      }),
    );
  });
});
