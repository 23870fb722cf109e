import { describe, expect, it } from "vitest";
import type { GatedPart } from "../../../src/store/composed.js";
import type { PassOutcome } from "../../../src/worker/outcome-table.js";
import {
  composable,
  composedParts,
  inTransaction,
  settleWay,
  type RecordWrite,
  type SettleWay,
} from "../../../src/worker/record-writes.js";

const part: GatedPart = (_p, gate, name) => [{ name: `${name}_x`, sql: `SELECT 1 FROM ${gate}` }];
const other: GatedPart = (_p, gate, name) => [{ name: `${name}_y`, sql: `SELECT 2 FROM ${gate}` }];
const step = inTransaction(() => Promise.resolve());
const note = { code: "SOME_CODE", message: "why" };

const done: PassOutcome = { kind: "done" };
const doneWithNote: PassOutcome = { kind: "done", note };
const pending: PassOutcome = { kind: "pending", note };
const retry: PassOutcome = { kind: "retry", note };
const terminal: PassOutcome = { kind: "terminal", note };

describe("the runner's choice of settle", () => {
  it.each<[string, PassOutcome, readonly RecordWrite[] | null, SettleWay]>([
    ["done, nothing to write", done, [], "composed"],
    ["done with a note, nothing to write", doneWithNote, [], "composed"],
    ["done, one composable write", done, [composable(part)], "composed"],
    ["done, two composable writes", done, [composable(part), composable(other)], "composed"],
    ["done, a transaction step", done, [step], "plain"],
    ["done, composable then a step", done, [composable(part), step], "plain"],
    ["done, a step then composable", done, [step, composable(part)], "plain"],
    ["done, no record declared", done, null, "plain"],
    ["pending, composable writes", pending, [composable(part)], "plain"],
    ["pending, nothing to write", pending, [], "plain"],
    ["retry, composable writes", retry, [composable(part)], "plain"],
    ["terminal, composable writes", terminal, [composable(part)], "plain"],
    ["terminal, a step", terminal, [step], "plain"],
  ])("%s → %s", (_what, outcome, writes, way) => {
    expect(settleWay(outcome, writes === null ? null : { writes })).toBe(way);
  });

  it("composes the declared parts in their order, the same functions the transaction would run", () => {
    expect(composedParts([composable(part), composable(other)])).toEqual([part, other]);
    expect(composedParts([])).toEqual([]);
  });
});
