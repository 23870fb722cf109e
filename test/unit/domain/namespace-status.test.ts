import { describe, expect, it } from "vitest";
import {
  NAMESPACE_STATUSES,
  canMoveNamespace,
  isBoundStatus,
  isClosedStatus,
  isLiveStatus,
  isRetryableStatus,
  type NamespaceStatus,
} from "../../../src/domain/placement/namespace-status.js";

type To = NamespaceStatus | "tombstoned";

/** Every move lifecycle.md §2 and §4 allow, and nothing else. */
const ALLOWED: readonly (readonly [NamespaceStatus, To])[] = [
  ["provisioning", "ready"],
  ["provisioning", "failed"],
  ["provisioning", "deleting"],
  ["ready", "degraded"],
  ["ready", "deleting"],
  ["degraded", "ready"],
  ["degraded", "provisioning"],
  ["degraded", "deleting"],
  ["failed", "provisioning"],
  ["failed", "deleting"],
  ["deleting", "tombstoned"],
];

const TARGETS: readonly To[] = [...NAMESPACE_STATUSES, "tombstoned"];

describe("Namespace status moves", () => {
  const cases = NAMESPACE_STATUSES.flatMap((from) =>
    TARGETS.filter((to) => to !== from).map((to) => ({
      from,
      to,
      allowed: ALLOWED.some(([f, t]) => f === from && t === to),
    })),
  );

  it.each(cases)("$from → $to allowed: $allowed", ({ from, to, allowed }) => {
    expect(canMoveNamespace(from, to)).toBe(allowed);
  });

  it.each(NAMESPACE_STATUSES)("%s may stay %s with a new reason", (status) => {
    expect(canMoveNamespace(status, status)).toBe(true);
  });

  it("leaves deleting only to the tombstone, and nothing comes back from it", () => {
    expect(TARGETS.filter((to) => canMoveNamespace("deleting", to))).toEqual([
      "deleting",
      "tombstoned",
    ]);
  });
});

describe("Namespace status groups", () => {
  const table: readonly {
    status: NamespaceStatus;
    bound: boolean;
    retryable: boolean;
    live: boolean;
    closed: boolean;
  }[] = [
    { status: "provisioning", bound: false, retryable: false, live: true, closed: false },
    { status: "ready", bound: true, retryable: false, live: true, closed: false },
    { status: "degraded", bound: true, retryable: true, live: true, closed: false },
    { status: "failed", bound: false, retryable: true, live: false, closed: true },
    { status: "deleting", bound: false, retryable: false, live: false, closed: true },
  ];

  it("covers every status", () => {
    expect(table.map((row) => row.status)).toEqual([...NAMESPACE_STATUSES]);
  });

  it.each(table)("$status", ({ status, bound, retryable, live, closed }) => {
    expect({
      bound: isBoundStatus(status),
      retryable: isRetryableStatus(status),
      live: isLiveStatus(status),
      closed: isClosedStatus(status),
    }).toEqual({ bound, retryable, live, closed });
  });

  it("a retry moves every retryable status to provisioning, and only those", () => {
    for (const status of NAMESPACE_STATUSES) {
      expect(isRetryableStatus(status) && canMoveNamespace(status, "provisioning")).toBe(
        isRetryableStatus(status),
      );
    }
  });

  it("refuses a word that is not a status", () => {
    expect([isBoundStatus("tombstoned"), isLiveStatus(""), isClosedStatus("READY")]).toEqual([
      false,
      false,
      false,
    ]);
  });
});
