import { describe, expect, it } from "vitest";
import {
  ADMISSION_MESSAGES,
  admissionPolicyObjects,
  openshellPolicyOptions,
  subjectKey,
  usernameOf,
} from "../../../src/drivers/kubernetes/admission-policies.js";
import { KubeApiError } from "../../../src/drivers/kubernetes/client/index.js";
import {
  admissionRefusal,
  isTenantViewRefusal,
  outcomeOfKubeError,
} from "../../../src/drivers/kubernetes/compute/failures.js";

const SA = { kind: "ServiceAccount", name: "occ-worker", namespace: "occ-system" } as const;
const USER = { kind: "User", name: "occ-api" } as const;

describe("admission policy identities", () => {
  it.each([
    [SA, "system:serviceaccount:occ-system:occ-worker", "ServiceAccount:occ-system:occ-worker"],
    [USER, "occ-api", "User::occ-api"],
  ] as const)("%o → username %s, subject key %s", (subject, username, key) => {
    expect(usernameOf(subject)).toBe(username);
    expect(subjectKey(subject)).toBe(key);
  });

  it("every policy matches exactly the given identities, and every rule has one of the documented messages", () => {
    const objects = admissionPolicyObjects({
      subjects: [SA, USER],
      ...openshellPolicyOptions(null),
    }) as unknown as {
      kind: string;
      spec: {
        matchConditions?: { expression: string }[];
        validations?: { message: string; reason: string }[];
      };
    }[];
    const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
    expect(policies).toHaveLength(3);
    const documented: readonly string[] = Object.values(ADMISSION_MESSAGES);
    for (const p of policies) {
      expect(p.spec.matchConditions?.map((c) => c.expression)).toEqual([
        'request.userInfo.username in ["system:serviceaccount:occ-system:occ-worker","occ-api"]',
      ]);
      for (const v of p.spec.validations ?? []) {
        expect(documented).toContain(v.message);
        expect(v.reason).toBe("Forbidden");
      }
    }
    const used = policies.flatMap((p) => (p.spec.validations ?? []).map((v) => v.message));
    expect(new Set(used)).toEqual(new Set(documented));
  });
});

describe("admissionRefusal: an OCC policy's 403 is told apart from a missing RoleBinding", () => {
  const error = (status: number, detail: string) =>
    new KubeApiError({ verb: "create", path: "/x", category: "forbidden", status, detail });
  it.each([
    [
      403,
      `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p' denied request: ${ADMISSION_MESSAGES.ownedNew}`,
      ADMISSION_MESSAGES.ownedNew.replace("openclaw-enterprise: ", ""),
    ],
    [403, 'configmaps "a" is forbidden: User "occ-worker" cannot create resource', null],
    [403, "ValidatingAdmissionPolicy 'other' denied request: not ours", null],
    [422, `ValidatingAdmissionPolicy 'p' denied request: ${ADMISSION_MESSAGES.ownedNew}`, null],
  ] as const)("%i %s", (status, detail, expected) => {
    expect(admissionRefusal(error(status, detail))).toBe(expected);
  });
});

describe("isTenantViewRefusal: only the tenant refusal may be the admission view trailing OCC's own write", () => {
  const refused = (message: string) =>
    outcomeOfKubeError(
      new KubeApiError({
        verb: "create",
        path: "/x",
        category: "forbidden",
        status: 403,
        detail: `resourcequotas "q" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p' denied request: ${message}`,
      }),
      "after-verification",
      "write ResourceQuota openclaw-quota",
      "ns",
    );
  it.each([
    ["ownedTenant", ADMISSION_MESSAGES.ownedTenant, true],
    ["ownedNew", ADMISSION_MESSAGES.ownedNew, false],
    ["ownedOld", ADMISSION_MESSAGES.ownedOld, false],
    ["bindNamespace", ADMISSION_MESSAGES.bindNamespace, false],
  ] as const)("%s → %s", (_name, message, expected) => {
    const result = refused(message);
    expect(result.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    expect(isTenantViewRefusal(result)).toBe(expected);
  });

  it("a missing RoleBinding's 403 is pending, never a tenant refusal", () => {
    const result = outcomeOfKubeError(
      new KubeApiError({
        verb: "create",
        path: "/x",
        category: "forbidden",
        status: 403,
        detail: "cannot create",
      }),
      "after-verification",
      "write ResourceQuota openclaw-quota",
      "ns",
    );
    expect(result.code).toBe("KUBERNETES_PERMISSION_PENDING");
    expect(isTenantViewRefusal(result)).toBe(false);
  });
});
