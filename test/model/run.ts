/**
 * The R5 runner: fast-check generates short command sequences, each with at least one fault,
 * runs them against one shared {@link Stack}, waits for quiescence and checks the invariants.
 * A failure is shrunk and printed with its seed and path for `npm run test:model -- --seed`.
 */
import fc from "fast-check";
import type { Stack } from "../harness/stack.js";
import { violations } from "./invariants.js";
import { newModel, type Model, type Real } from "./model.js";
import {
  AddForeignPolicy,
  DeleteNamespaceOutOfBand,
  DeleteOwned,
  Grants,
  InjectFault,
  TamperMarkers,
  type Fault,
} from "./operator-commands.js";
import { sleep } from "../harness/time.js";
import { takeBackup, TakeBackup } from "./restore.js";
import { addFaults, emptyTotals, faultCount, type RunTotals } from "./totals.js";
import {
  CreateExternal,
  CreateManaged,
  CreateResource,
  DeleteResource,
  DeleteTenant,
} from "./tenant-commands.js";

const api = fc.nat(1);
const index = fc.nat(7);
const resource = fc.constantFrom("configuration" as const, "secret" as const, "agent" as const);

const FAULTS: readonly (readonly [Fault, number])[] = [
  ["kill-worker", 10],
  ["kill-api", 6],
  ["restart-postgres", 2],
  ["failover-postgres", 2],
  ["restart-apiserver", 2],
];

const faultOf = (faults: readonly (readonly [Fault, number])[]): fc.Arbitrary<InjectFault> =>
  fc
    .tuple(
      fc.oneof(...faults.map(([f, weight]) => ({ weight, arbitrary: fc.constant(f) }))),
      fc.nat(1),
    )
    .map(([f, i]) => new InjectFault(f, i));

/**
 * A sequence's own fault: cheap faults most of the time; PostgreSQL and API-server restarts and
 * a failover in a fraction; a restore of the backup taken at the sequence's start (it stops and
 * starts every OCC process, ~10 s) in 1 of 23, only here, to keep the CI run's time.
 */
export const faultArb = faultOf([...FAULTS, ["restore-backup", 1]]);

export const commandArbs = [
  api.map((a) => new CreateManaged(a)),
  fc
    .tuple(
      api,
      fc.constantFrom(
        "ok",
        "ok",
        "no-pod-security",
        "no-lifecycle",
        "foreign-marker",
        "allow-all" as const,
      ),
      fc.boolean(),
    )
    .map(([a, p, g]) => new CreateExternal(a, p, g)),
  fc.tuple(api, index).map(([a, i]) => new DeleteTenant(a, i)),
  fc
    .tuple(
      index,
      fc.constantFrom("foreign-label", "remove-label", "lifecycle", "relax-pod-security" as const),
    )
    .map(([i, h]) => new TamperMarkers(i, h)),
  index.map((i) => new AddForeignPolicy(i)),
  fc
    .tuple(
      index,
      fc.constantFrom("default-deny", "allow-dns", "openclaw-quota", "openclaw-limits" as const),
    )
    .map(([i, w]) => new DeleteOwned(i, w)),
  index.map((i) => new DeleteNamespaceOutOfBand(i)),
  fc.tuple(index, fc.constantFrom("grant", "revoke" as const)).map(([i, t]) => new Grants(i, t)),
  fc.tuple(api, index, resource).map(([a, i, k]) => new CreateResource(a, i, k)),
  fc.tuple(api, index, resource).map(([a, i, k]) => new DeleteResource(a, i, k)),
  faultOf(FAULTS),
];

export interface RunOptions {
  readonly runs: number;
  readonly seed?: number;
  readonly path?: string;
  /** The commands' `replayPath` fast-check printed with the counterexample. */
  readonly replayPath?: string;
  readonly maxCommands?: number;
  /** How long a sequence may take to settle before its violations count. */
  readonly settleMs?: number;
  readonly log?: (line: string) => void;
}

/**
 * How long a sequence may take to become quiet. A managed tenant's deletion waits for the
 * cluster's namespace controller to empty and remove its namespace, which took over 60 s once
 * on the loaded 2-core machine (CI seed 20261202, sequence 145: `deleting` with
 * `KUBERNETES_NAMESPACE_PENDING`, the namespace still terminating; its reruns took 9–30 s).
 * A passing sequence returns as soon as it is quiet, so the bound costs only failing ones.
 */
export const SETTLE_MS = 120_000;

/** Polls the invariants until none is violated (the stack is quiet), or the bound passes. */
export async function settle(stack: Stack, m: Model, boundMs: number): Promise<string[]> {
  const deadline = Date.now() + boundMs;
  let last: string[] = [];
  await stack.restarted();
  for (;;) {
    last = await violations(stack, m).catch((err: unknown) => [`checking failed: ${String(err)}`]);
    if (last.length === 0) {
      // Stable: the same verdict once more after a pause (no pass was still about to land).
      await sleep(300);
      last = await violations(stack, m);
      if (last.length === 0) return [];
    }
    if (Date.now() > deadline) return last;
    await sleep(300);
  }
}

/** Runs one sequence: the commands, with `fault` injected before command `at`. */
export async function runSequence(
  stack: Stack,
  fault: InjectFault,
  at: number,
  cmds: Iterable<fc.AsyncCommand<Model, Real>>,
  settleMs: number,
): Promise<Model> {
  const m = newModel(stack.unexpectedExits.length);
  const real: Real = { stack };
  const list = [...cmds];
  // A restore rolls back to the backup taken before the sequence's first command.
  const restores = [fault, ...list].some(
    (c) => c instanceof InjectFault && c.fault === "restore-backup",
  );
  if (restores && !list.some((c) => c instanceof TakeBackup)) await takeBackup(m, real);
  for (const [i, c] of list.entries()) {
    if (i === at % (list.length + 1)) await fault.run(m, real);
    if (c.check(m)) {
      m.commands++;
      await c.run(m, real);
    }
  }
  if (faultCount(m.faultKinds) === 0) await fault.run(m, real);
  const found = await settle(stack, m, settleMs);
  if (found.length > 0) {
    throw new Error(`${found.length} invariant violation(s):\n  ${found.join("\n  ")}`);
  }
  return m;
}

/** Runs `runs` sequences (or replays one seed/path); throws fast-check's report on failure. */
export async function runModel(stack: Stack, opts: RunOptions): Promise<RunTotals> {
  const totals = emptyTotals();
  const log = opts.log ?? (() => undefined);
  const prop = fc.asyncProperty(
    faultArb,
    fc.nat(8),
    fc.commands(commandArbs, {
      maxCommands: opts.maxCommands ?? 8,
      size: "+1",
      ...(opts.replayPath !== undefined ? { replayPath: opts.replayPath } : {}),
    }),
    async (fault, at, cmds) => {
      const started = Date.now();
      try {
        const m = await runSequence(stack, fault, at, cmds, opts.settleMs ?? SETTLE_MS);
        totals.commands += m.commands;
        addFaults(totals.faultKinds, m.faultKinds);
      } catch (err) {
        totals.violations++;
        log(`  failed: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      } finally {
        totals.sequences++;
        log(
          `sequence ${totals.sequences}: ${described(cmds)} + ${fault.toString()} (${Date.now() - started} ms)`,
        );
      }
    },
  );
  await fc.assert(prop, {
    numRuns: opts.runs,
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.path !== undefined ? { path: opts.path } : {}),
  });
  return totals;
}

/** fast-check's text of a command sequence: the commands that ran, as a replayable list. */
function described(cmds: Iterable<fc.AsyncCommand<Model, Real>>): string {
  return (cmds as unknown as { toString(): string }).toString();
}
