import { describe, expect, it } from "vitest";
import {
  isKindObject,
  KINDS,
  KindObjectError,
  parseKindObject,
  type Kind,
} from "../../../src/drivers/kubernetes/client/index.js";

const ALL_KINDS = Object.keys(KINDS) as readonly Kind[];
const REVIEWS: readonly Kind[] = [
  "SelfSubjectAccessReview",
  "SelfSubjectRulesReview",
  "SelfSubjectReview",
];

/** A well-formed stored object of `kind` as the API server returns it. */
function stored(kind: Kind, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { apiVersion, namespaced } = KINDS[kind];
  return {
    apiVersion,
    kind,
    metadata: {
      name: "obj",
      ...(namespaced ? { namespace: "ns" } : {}),
      uid: "u-1",
      resourceVersion: "7",
      labels: { a: "b" },
      annotations: { c: "d" },
    },
    ...extra,
  };
}

/** `body` without `field`. */
function without(body: Record<string, unknown>, field: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => k !== field));
}

function failure(kind: Kind, body: unknown, asked?: { name?: string; namespace?: string }) {
  try {
    parseKindObject(kind, body, asked);
  } catch (err) {
    expect(err).toBeInstanceOf(KindObjectError);
    return err instanceof Error ? err.message : "";
  }
  throw new Error(`${kind}: accepted ${JSON.stringify(body)}`);
}

describe("parseKindObject: every kind of the table", () => {
  it.each(ALL_KINDS)("%s: a well-formed object is returned as it came", (kind) => {
    const body = stored(kind);
    expect(parseKindObject(kind, body)).toBe(body);
    expect(parseKindObject(kind, body, { name: "obj", namespace: "ns" })).toBe(body);
    expect(isKindObject(kind, body)).toBe(true);
  });

  it.each(ALL_KINDS)("%s: another kind's envelope is refused, naming both", (kind) => {
    for (const other of ALL_KINDS.filter((k) => k !== kind)) {
      const message = failure(kind, stored(other));
      expect(message).toContain(kind);
      expect(message).toContain(`is of kind "${other}"`);
      expect(message).toContain("obj");
    }
  });

  it.each(ALL_KINDS)("%s: a wrong or missing apiVersion is refused", (kind) => {
    const wrong = failure(kind, { ...stored(kind), apiVersion: "example.com/v9" });
    expect(wrong).toContain(`has apiVersion "example.com/v9", not ${KINDS[kind].apiVersion}`);
    expect(failure(kind, without(stored(kind), "apiVersion"))).toContain(
      "has apiVersion undefined",
    );
  });

  it.each(ALL_KINDS)("%s: a missing kind is refused", (kind) => {
    expect(failure(kind, without(stored(kind), "kind"))).toContain("is of kind undefined");
  });
});

describe("parseKindObject: metadata", () => {
  const STORED = ALL_KINDS.filter((k) => !REVIEWS.includes(k));

  it.each(STORED)("%s: missing metadata, or metadata without a name, is refused", (kind) => {
    const bare = without(stored(kind), "metadata");
    expect(failure(kind, bare)).toContain("has no metadata");
    expect(failure(kind, { ...bare, metadata: null })).toContain("has no metadata");
    expect(failure(kind, { ...bare, metadata: [] })).toContain("has no metadata");
    expect(failure(kind, { ...bare, metadata: { uid: "u" } })).toContain("has no metadata.name");
    expect(failure(kind, { ...bare, metadata: { name: "" } })).toContain("has no metadata.name");
  });

  it.each(REVIEWS)("%s: an answer without metadata is accepted, broken metadata is not", (kind) => {
    const bare = without(stored(kind), "metadata");
    const answer = { ...bare, status: { allowed: true } };
    expect(parseKindObject(kind, answer)).toBe(answer);
    expect(failure(kind, { ...answer, metadata: { labels: { a: 1 } } })).toContain("labels");
  });

  const BAD_METADATA: readonly [string, Record<string, unknown>, string][] = [
    ["a numeric uid", { name: "obj", uid: 5 }, "metadata.uid that is not a string"],
    ["a numeric namespace", { name: "obj", namespace: 1 }, "metadata.namespace"],
    ["an object resourceVersion", { name: "obj", resourceVersion: {} }, "metadata.resourceVersion"],
    ["a numeric deletionTimestamp", { name: "obj", deletionTimestamp: 3 }, "deletionTimestamp"],
    ["labels with a number", { name: "obj", labels: { a: 1 } }, "labels that are not"],
    ["labels as a list", { name: "obj", labels: ["a"] }, "labels that are not"],
    ["annotations with null", { name: "obj", annotations: { a: null } }, "annotations"],
  ];
  it.each(BAD_METADATA)("metadata with %s is refused", (_what, metadata, problem) => {
    expect(failure("ConfigMap", { ...stored("ConfigMap"), metadata })).toContain(problem);
  });

  it("the asked name and namespace must be the body's, and the error names the asked object", () => {
    const body = stored("Secret");
    const otherName = failure("Secret", body, { name: "wanted", namespace: "ns" });
    expect(otherName).toContain('Secret ns/wanted with a body that names "obj"');
    const otherNs = failure("Secret", body, { name: "obj", namespace: "elsewhere" });
    expect(otherNs).toContain('Secret elsewhere/obj with a body that is in namespace "ns"');
    // A list asks for a namespace only.
    expect(failure("Secret", body, { namespace: "elsewhere" })).toContain("in namespace");
    expect(parseKindObject("Secret", body, { namespace: "ns" })).toBe(body);
  });

  it("a cluster-scoped kind ignores the asked namespace", () => {
    const body = stored("Namespace");
    expect(parseKindObject("Namespace", body, { name: "obj", namespace: "any" })).toBe(body);
  });
});

describe("parseKindObject: per-kind sections", () => {
  const CASES: readonly [Kind, Record<string, unknown>, string][] = [
    ["ConfigMap", { data: { a: 1 } }, "data that is not a string map"],
    ["ConfigMap", { data: "x" }, "data that is not a string map"],
    ["Secret", { data: { a: ["x"] } }, "data that is not a string map"],
    ["Secret", { type: 3 }, "a type that is not a string"],
    ["Namespace", { status: "Active" }, "a status that is not an object"],
    ["ResourceQuota", { spec: [] }, "a spec that is not an object"],
    ["LimitRange", { spec: "x" }, "a spec that is not an object"],
    ["NetworkPolicy", { spec: [] }, "a spec that is not an object"],
    ["Deployment", { status: 1 }, "a status that is not an object"],
    ["PersistentVolumeClaim", { spec: 1 }, "a spec that is not an object"],
    ["Pod", { spec: "x" }, "a spec that is not an object"],
    ["ValidatingAdmissionPolicy", { spec: [] }, "a spec that is not an object"],
    ["Role", { rules: {} }, "rules that are not policy rules"],
    ["Role", { rules: [{ verbs: "get" }] }, "rules that are not policy rules"],
    ["ClusterRole", { rules: [{ verbs: ["get"], resources: [1] }] }, "rules that are not"],
    ["RoleBinding", { roleRef: "admin" }, "a roleRef that is not a role reference"],
    ["RoleBinding", { roleRef: { name: 1 } }, "a roleRef that is not a role reference"],
    ["ClusterRoleBinding", { subjects: [{ kind: "User", name: 7 }] }, "subjects that are not"],
    ["RoleBinding", { subjects: {} }, "subjects that are not subjects"],
    ["Event", { reason: 5 }, "an event field that is not a string"],
    ["Event", { source: "occ" }, "a source that is not an event source"],
    ["Event", { source: { component: 1 } }, "a source that is not an event source"],
    ["SelfSubjectAccessReview", { status: true }, "a status that is not an object"],
  ];
  it.each(CASES)("%s with %j is refused", (kind, extra, problem) => {
    expect(failure(kind, stored(kind, extra))).toContain(problem);
  });

  const GOOD: readonly [Kind, Record<string, unknown>][] = [
    ["ConfigMap", { data: { a: "1" } }],
    ["Secret", { type: "Opaque", data: { a: "eA==" } }],
    ["Role", { rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }],
    ["RoleBinding", { roleRef: { kind: "ClusterRole", name: "x" }, subjects: [{ name: "u" }] }],
    ["Event", { reason: "READY", source: { component: "occ-worker" } }],
    ["Deployment", { spec: { replicas: 1 }, status: { availableReplicas: 1 } }],
  ];
  it.each(GOOD)("%s with %j is accepted", (kind, extra) => {
    const body = stored(kind, extra);
    expect(parseKindObject(kind, body)).toBe(body);
  });

  // The API server writes empty optional fields as null: read as absent, never kept as null.
  const NULLS: readonly [Kind, Record<string, unknown>, string][] = [
    ["Role", { rules: null }, "rules"],
    ["ClusterRole", { rules: null }, "rules"],
    ["RoleBinding", { subjects: null }, "subjects"],
    ["Event", { firstTimestamp: null, reason: "READY" }, "firstTimestamp"],
    ["ConfigMap", { data: null }, "data"],
    ["Deployment", { status: null }, "status"],
    ["NetworkPolicy", { spec: null }, "spec"],
  ];
  it.each(NULLS)("%s with %j is accepted without the null field", (kind, extra, field) => {
    const parsed: object = parseKindObject(kind, stored(kind, extra));
    expect(Object.keys(parsed)).not.toContain(field);
    expect(Object.values(parsed)).not.toContain(null);
  });

  it("a body that is not an object is refused, described as unnamed", () => {
    for (const body of [null, undefined, "text", 3, [stored("Namespace")]]) {
      expect(failure("Namespace", body)).toContain("Namespace (unnamed) with a body that is not");
    }
  });
});
