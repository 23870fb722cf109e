/**
 * The worker decides a Namespace pass's re-authorization in its claim's statement from
 * `NAMESPACE_PASS_REQUESTS`: every request `namespacePassPermissions` can return must be among
 * them, or that pass would spend a round trip deciding it on its own.
 */
import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import type { PlacementMode } from "../../../src/domain/placement/placement.js";
import { embeddedDecisions } from "../../../src/iam/embedded-decisions.js";
import {
  NAMESPACE_PASS_REQUESTS,
  namespacePassPermissions,
} from "../../../src/services/namespaces/permissions.js";
import { NAMESPACE_WORK_KINDS } from "../../../src/work/namespace-work.js";

const MODES: readonly PlacementMode[] = ["managed", "external", "preprovisioned"];

describe("NAMESPACE_PASS_REQUESTS", () => {
  const decided = embeddedDecisions({
    principal: "p",
    namespace: "n",
    requests: NAMESPACE_PASS_REQUESTS,
    as: "d_",
  });
  /** A statement's row in which every request was allowed. */
  const row = {
    d_live: "live",
    ...Object.fromEntries(NAMESPACE_PASS_REQUESTS.map((_, i) => [`d_${String(i)}`, "allowed"])),
  };

  const cases = NAMESPACE_WORK_KINDS.flatMap((kind) => MODES.map((mode) => [kind, mode] as const));
  it.each(cases)("covers every request of a %s pass on a %s Namespace", (kind, mode) => {
    const id = newNamespaceId();
    const requests = namespacePassPermissions(kind, id, { mode });
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(decided.read(row, id)(request), JSON.stringify(request)).toEqual({ allowed: true });
    }
  });
});
