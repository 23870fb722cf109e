/**
 * What a model run counts, and its one printed line: r5.model.test.ts prints it at the end of
 * a run, and test/model/shards.ts reads each shard's line back to sum a parallel run.
 */

/** Faults injected, by kind: `{ "kill-worker": 12, "restart-postgres": 2 }`. */
export type FaultKinds = Record<string, number>;

export interface RunTotals {
  sequences: number;
  commands: number;
  readonly faultKinds: FaultKinds;
  violations: number;
}

export const emptyTotals = (): RunTotals => ({
  sequences: 0,
  commands: 0,
  faultKinds: {},
  violations: 0,
});

/** How many faults `kinds` counts, whatever their kind. */
export const faultCount = (kinds: FaultKinds): number =>
  Object.values(kinds).reduce((a, b) => a + b, 0);

/** Adds `n` faults of `kind` to `kinds`. */
export function countFault(kinds: FaultKinds, kind: string, n = 1): void {
  kinds[kind] = (kinds[kind] ?? 0) + n;
}

/** Adds the faults of `from` to `into`, kind by kind. */
export function addFaults(into: FaultKinds, from: FaultKinds): void {
  for (const [kind, n] of Object.entries(from)) countFault(into, kind, n);
}

/** Adds `from` to `into`: every count, faults by kind. */
export function addTotals(into: RunTotals, from: RunTotals): void {
  into.sequences += from.sequences;
  into.commands += from.commands;
  into.violations += from.violations;
  addFaults(into.faultKinds, from.faultKinds);
}

/** The totals as one line: `12 sequences, 30 commands, 14 faults (9 kill-worker, …), 0 violations`. */
export function describeTotals(t: RunTotals): string {
  const kinds = Object.entries(t.faultKinds)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(", ");
  return (
    `${t.sequences} sequences, ${t.commands} commands, ${faultCount(t.faultKinds)} faults ` +
    `(${kinds}), ${t.violations} violations`
  );
}

const LINE = /(\d+) sequences, (\d+) commands, \d+ faults \(([^)]*)\), (\d+) violations/;

/** The totals of the first line {@link describeTotals} wrote in `text`, or `null` if none. */
export function parseTotals(text: string): RunTotals | null {
  const m = LINE.exec(text);
  if (m === null) return null;
  const t: RunTotals = {
    sequences: Number(m[1]),
    commands: Number(m[2]),
    faultKinds: {},
    violations: Number(m[4]),
  };
  for (const part of (m[3] ?? "").split(", ").filter((p) => p !== "")) {
    const [n, kind] = part.split(" ");
    countFault(t.faultKinds, kind ?? "", Number(n));
  }
  return t;
}
