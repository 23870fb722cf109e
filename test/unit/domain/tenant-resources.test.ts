import { describe, expect, it } from "vitest";
import {
  configMapName,
  configurationMarkers,
  contentDigest,
  newTenantResourceId,
  ownedObjectMismatch,
  RESOURCE_LABELS,
  secretMarkers,
  secretObjectName,
  tenantResourceIdPattern,
} from "../../../src/domain/tenant/resources.js";
import { h, isDns1123Label, isLabelValue } from "../../../src/domain/placement/naming.js";

const TENANT = "ns_00000000-0000-4000-8000-000000000001";
const CFG = "cfg_00000000-0000-4000-8000-0000000000aa";

describe("tenant resource IDs", () => {
  it.each(["configuration", "secret", "serviceAccount"] as const)(
    "%s: generated IDs match the pattern and are label values",
    (kind) => {
      const id = newTenantResourceId(kind);
      expect(tenantResourceIdPattern(kind).test(id)).toBe(true);
      expect(isLabelValue(id)).toBe(true);
    },
  );
  it("refuses other prefixes and upper case", () => {
    expect(tenantResourceIdPattern("secret").test(CFG)).toBe(false);
    expect(tenantResourceIdPattern("configuration").test(CFG.toUpperCase())).toBe(false);
  });
});

describe("object names", () => {
  it("carry a hash of the ID, never the ID, and are DNS labels", () => {
    expect(configMapName(CFG)).toBe(`occ-cfg-${h(CFG, 20)}`);
    expect(secretObjectName(CFG)).toBe(`occ-sec-${h(CFG, 20)}`);
    expect(configMapName(CFG)).not.toContain(CFG);
    expect(isDns1123Label(configMapName(CFG))).toBe(true);
  });
});

describe("ownedObjectMismatch", () => {
  const markers = configurationMarkers(TENANT, CFG, "agent", 2);
  const meta = {
    name: configMapName(CFG),
    uid: "u-1",
    labels: { ...markers.labels, extra: "ignored" },
    annotations: markers.annotations,
  };
  const expected = { name: configMapName(CFG), markers, uid: "u-1" };

  it("accepts the object as written (extra keys ignored)", () => {
    expect(ownedObjectMismatch(meta, expected)).toBeNull();
  });
  it.each([
    ["another name", { ...meta, name: "x" }],
    ["another UID", { ...meta, uid: "u-2" }],
    [
      "an edited generation",
      { ...meta, labels: { ...meta.labels, [RESOURCE_LABELS.generation]: "3" } },
    ],
    ["a missing annotation", { ...meta, annotations: {} }],
    [
      "another tenant",
      { ...meta, labels: { ...meta.labels, "openclaw.dev/namespace": "ns_other" } },
    ],
  ])("refuses %s", (_what, changed) => {
    expect(ownedObjectMismatch(changed, expected)).not.toBeNull();
  });
  it("secret markers carry the Secret ID", () => {
    expect(secretMarkers(TENANT, "sec_x").labels).toMatchObject({ "openclaw.dev/secret": "sec_x" });
  });
  it("contentDigest is SHA-256 hex", () => {
    expect(contentDigest("")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });
});
