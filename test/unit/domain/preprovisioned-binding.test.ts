import { describe, expect, it } from "vitest";
import { parsePreprovisionedBinding } from "../../../src/domain/preprovisioned/binding.js";

const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";

function problems(raw: string): string[] {
  const parsed = parsePreprovisionedBinding(raw);
  if (parsed.ok) throw new Error("expected the binding to be refused");
  return parsed.error.map((p) => p.message);
}

describe("parsePreprovisionedBinding", () => {
  it("accepts exactly namespaceId and uid", () => {
    expect(
      parsePreprovisionedBinding(JSON.stringify({ namespaceId: "ns_example", uid: UID })),
    ).toEqual({
      ok: true,
      value: { namespaceId: "ns_example", uid: UID },
    });
  });

  it.each([
    ["malformed JSON", "{namespaceId:", /is not valid JSON/],
    ["not an object", "[]", /must be a JSON object/],
    ["null", "null", /must be a JSON object/],
    [
      "an extra key",
      JSON.stringify({ namespaceId: "ns_example", uid: UID, extra: 1 }),
      /OCC_PREPROVISIONED_NAMESPACE\.extra is not allowed/,
    ],
    [
      "an uppercase UID",
      JSON.stringify({ namespaceId: "ns_example", uid: UID.toUpperCase() }),
      /uid must be a lowercase UUID, but it contains uppercase letters/,
    ],
    [
      "a UID that is no UUID",
      JSON.stringify({ namespaceId: "ns_example", uid: "abc" }),
      /uid must be a lowercase UUID \(/,
    ],
    [
      "a bad ID",
      JSON.stringify({ namespaceId: "ns_bad.id", uid: UID }),
      /namespaceId must match \^ns_\[a-zA-Z0-9_-\]\{1,60\}\$/,
    ],
    [
      "a too long ID",
      JSON.stringify({ namespaceId: `ns_${"a".repeat(61)}`, uid: UID }),
      /namespaceId must match/,
    ],
    ["a missing uid", JSON.stringify({ namespaceId: "ns_example" }), /uid is required/],
    ["a missing namespaceId", JSON.stringify({ uid: UID }), /namespaceId is required/],
  ])("names %s", (_, raw, expected) => {
    expect(problems(raw).join("\n")).toMatch(expected);
  });

  it("reports every problem at once", () => {
    expect(problems(JSON.stringify({ namespaceId: "x", uid: "Y", more: true }))).toHaveLength(3);
  });
});
