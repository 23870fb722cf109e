import { describe, expect, it } from "vitest";
import {
  deleted,
  notDone,
  OUTCOME_CLASS_BY_CODE,
  ready,
  WORKLOAD_OUTCOME_CLASS_BY_CODE,
  workloadNotDone,
  type OutcomeClass,
  type OutcomeCode,
  type WorkloadCode,
} from "../../../src/domain/index.js";
import { agentOutcomeOf } from "../../../src/worker/agent-record.js";
import { namespaceOutcomeOf } from "../../../src/worker/namespace-status-table.js";
import {
  outcomeOfResult,
  QUEUE_MOVES,
  type PassOutcomeKind,
  type QueueMove,
} from "../../../src/worker/outcome-table.js";

const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";

describe("QUEUE_MOVES: the one outcome → queue-move table", () => {
  it.each<[PassOutcomeKind, QueueMove]>([
    ["done", "complete"],
    ["pending", "defer"],
    ["retry", "retry"],
    ["terminal", "fail"],
  ])("%s → %s", (outcome, move) => {
    expect(QUEUE_MOVES[outcome]).toBe(move);
  });

  it("has exactly the four outcomes, each with a distinct move", () => {
    expect(Object.keys(QUEUE_MOVES).sort()).toEqual(["done", "pending", "retry", "terminal"]);
    expect(new Set(Object.values(QUEUE_MOVES)).size).toBe(4);
  });
});

/** What each code class becomes, and the move it takes. */
const BY_CLASS: Readonly<Record<OutcomeClass, PassOutcomeKind>> = {
  pending: "pending",
  retryable: "retry",
  permanent: "terminal",
};

const placementCodes = Object.entries(OUTCOME_CLASS_BY_CODE) as [OutcomeCode, OutcomeClass][];
const workloadCodes = Object.entries(WORKLOAD_OUTCOME_CLASS_BY_CODE) as [
  WorkloadCode,
  OutcomeClass,
][];

describe("outcomeOfResult: every Driver result", () => {
  it.each([
    ["ready", ready(UID, "occ-tenant")],
    ["deleted", deleted()],
    ["active", { outcome: "active", namespaceName: "occ-tenant" } as const],
  ])("%s is done, without a note", (_what, result) => {
    expect(outcomeOfResult(result)).toEqual({ kind: "done" });
  });

  it.each(placementCodes)("placement code %s (%s)", (code, cls) => {
    const outcome = outcomeOfResult(notDone(code, `why ${code}`));
    expect(outcome).toEqual({ kind: BY_CLASS[cls], note: { code, message: `why ${code}` } });
  });

  it.each(workloadCodes)("workload code %s (%s)", (code, cls) => {
    const outcome = outcomeOfResult(workloadNotDone(code, `why ${code}`));
    expect(outcome).toEqual({ kind: BY_CLASS[cls], note: { code, message: `why ${code}` } });
  });
});

describe("namespaceOutcomeOf: a permanent cause over a bound Namespace is a verdict, not a failure", () => {
  it.each(placementCodes)("%s (%s)", (code, cls) => {
    const result = notDone(code, "why");
    const note = { code, message: "why" };
    expect(namespaceOutcomeOf(result, false)).toEqual({ kind: BY_CLASS[cls], note });
    const bound = namespaceOutcomeOf(result, true);
    expect(bound).toEqual(
      cls === "permanent" ? { kind: "done", note } : { kind: BY_CLASS[cls], note },
    );
    expect(QUEUE_MOVES[bound.kind]).toBe(
      { pending: "defer", retryable: "retry", permanent: "complete" }[cls],
    );
  });

  it.each([true, false])("ready and deleted are done (bound: %s)", (bound) => {
    expect(namespaceOutcomeOf(ready(UID, "occ-tenant"), bound)).toEqual({ kind: "done" });
    expect(namespaceOutcomeOf(deleted(), bound)).toEqual({ kind: "done" });
  });
});

describe("agentOutcomeOf", () => {
  it("a refusal (the Namespace or a reference is gone) is terminal with its reason", () => {
    const reason = { code: "AGENT_REFERENCE_MISSING", message: "gone" };
    expect(agentOutcomeOf({ kind: "refused", reason })).toEqual({ kind: "terminal", note: reason });
  });

  it.each(workloadCodes)("deploy and teardown follow the table for %s (%s)", (code, cls) => {
    const result = workloadNotDone(code, "why");
    const expected = { kind: BY_CLASS[cls], note: { code, message: "why" } };
    expect(agentOutcomeOf({ kind: "deploy", result })).toEqual(expected);
    expect(agentOutcomeOf({ kind: "teardown", result })).toEqual(expected);
  });
});
