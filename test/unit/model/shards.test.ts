import { describe, expect, it } from "vitest";
import { planShards, sequencesIn } from "../../model/shards.js";
import {
  addTotals,
  describeTotals,
  emptyTotals,
  faultCount,
  parseTotals,
} from "../../model/totals.js";

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

describe("a shard's totals line, read back and summed", () => {
  const line = (seqs: number, kinds: string, v: number) =>
    `noise\n[model] ${seqs} sequences, ${seqs * 3} commands, ${seqs + 1} faults (${kinds}), ${v} violations in 42 s\n`;

  it("sums sequences, commands, faults by kind and violations over shards", () => {
    const sum = emptyTotals();
    for (const log of [line(10, "3 kill-api, 8 kill-worker", 0), line(5, "6 kill-worker", 1)]) {
      const totals = parseTotals(log);
      expect(totals).not.toBeNull();
      if (totals !== null) addTotals(sum, totals);
    }
    expect(sum).toEqual({
      sequences: 15,
      commands: 45,
      faultKinds: { "kill-api": 3, "kill-worker": 14 },
      violations: 1,
    });
    expect(faultCount(sum.faultKinds)).toBe(17);
    expect(describeTotals(sum)).toBe(
      "15 sequences, 45 commands, 17 faults (3 kill-api, 14 kill-worker), 1 violations",
    );
    expect(parseTotals(`[model] ${describeTotals(sum)} in 9 s`)).toEqual(sum);
  });

  it("finds none in a log without the line (a failed shard)", () => {
    expect(parseTotals("FAIL  test/model/r5.model.test.ts\nProperty failed after 3 tests")).toBe(
      null,
    );
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
