import { describe, expect, it } from "vitest";
import { addTotals, planShards, sequencesIn } from "../../model/shards.js";

describe("planShards: a long model run split over stacks", () => {
  it.each([
    {
      runs: 2000,
      seed: 7,
      parallel: 3,
      want: [
        [667, 7],
        [667, 8],
        [666, 9],
      ],
    },
    {
      runs: 200,
      seed: -1,
      parallel: 2,
      want: [
        [100, -1],
        [100, 0],
      ],
    },
    {
      runs: 5,
      seed: 2 ** 31 - 1,
      parallel: 2,
      want: [
        [3, 2 ** 31 - 1],
        [2, -(2 ** 31)],
      ],
    },
    { runs: 4, seed: 1, parallel: 1, want: [[4, 1]] },
  ])("$runs runs over $parallel from seed $seed", ({ runs, seed, parallel, want }) => {
    const shards = planShards({ runs, seed, parallel });
    expect(shards.map((s) => [s.runs, s.seed])).toEqual(want);
    expect(shards.reduce((n, s) => n + s.runs, 0)).toBe(runs);
  });
});

describe("addTotals: a shard's totals line read back", () => {
  const line = (seqs: number, kinds: string, v: number) =>
    `noise\n[model] ${seqs} sequences, ${seqs * 3} commands, ${seqs + 1} faults (${kinds}), ${v} violations in 42 s\n`;

  it("sums sequences, commands, faults by kind and violations over shards", () => {
    const sum = { sequences: 0, commands: 0, faults: 0, violations: 0, kinds: new Map() };
    expect(addTotals(sum, line(10, "3 kill-api, 8 kill-worker", 0))).toBe(true);
    expect(addTotals(sum, line(5, "6 kill-worker", 1))).toBe(true);
    expect(sum).toEqual({
      sequences: 15,
      commands: 45,
      faults: 17,
      violations: 1,
      kinds: new Map([
        ["kill-api", 3],
        ["kill-worker", 14],
      ]),
    });
  });

  it("answers false, adding nothing, for a log without the line (a failed shard)", () => {
    const sum = { sequences: 0, commands: 0, faults: 0, violations: 0, kinds: new Map() };
    expect(addTotals(sum, "FAIL  test/model/r5.model.test.ts\nProperty failed after 3 tests")).toBe(
      false,
    );
    expect(sum.sequences).toBe(0);
  });
});

describe("sequencesIn: progress read from a shard's log", () => {
  it("counts the finished sequences, colour codes before them or not", () => {
    const log =
      '\u001b[22m\u001b[39msequence 1: createManaged(api0) /*replayPath=":"*/ + kill-api(1) (2510 ms)\n' +
      'sequence 2:  /*replayPath=":"*/ + kill-worker(0) (1352 ms)\n' +
      "  failed: 1 invariant violation(s): sequence 3 is not a finished line\n";
    expect(sequencesIn(log)).toBe(2);
    expect(sequencesIn("")).toBe(0);
  });
});
