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
  it.each<[string, SettleWay, PassOutcome, readonly RecordWrite[] | null]>([
    ["done, nothing to write", "composed", done, []],
    ["done with a note, nothing to write", "composed", doneWithNote, []],
    ["done, one composable write", "composed", done, [composable(part)]],
    ["done, two composable writes", "composed", done, [composable(part), composable(other)]],
    ["done, a transaction step", "plain", done, [step]],
    ["done, composable then a step", "plain", done, [composable(part), step]],
    ["done, a step then composable", "plain", done, [step, composable(part)]],
    ["done, no record declared", "plain", done, null],
    ["pending, composable writes", "plain", pending, [composable(part)]],
    ["pending, nothing to write", "plain", pending, []],
    ["retry, composable writes", "plain", retry, [composable(part)]],
    ["terminal, composable writes", "plain", terminal, [composable(part)]],
    ["terminal, a step", "plain", terminal, [step]],
  ])("%s → %s", (_what, way, outcome, writes) => {
    expect(settleWay(outcome, writes === null ? null : { writes })).toBe(way);
  });

  it("composes the declared parts in their order, the same functions the transaction would run", () => {
    expect(composedParts([composable(part), composable(other)])).toEqual([part, other]);
    expect(composedParts([])).toEqual([]);
  });
});
