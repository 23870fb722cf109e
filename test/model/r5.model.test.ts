/**
 * R5 (spec/quality.md §3): model-based random sequences with faults against the real stack —
 * kube-apiserver + kube-controller-manager, PostgreSQL, `occ api` ×2 and `occ worker` ×2.
 * The count comes from OCC_MODEL_RUNS (CI: 100, from the seed tools/test.sh fixes); OCC_MODEL_SEED,
 * OCC_MODEL_PATH and OCC_MODEL_REPLAY_PATH replay a failure
 * (`npm run test:model -- --seed <n> --path <p> --replay-path <r>`). See docs/reliability.md.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../harness/stack.js";
import { AddForeignPolicy, Grants, InjectFault } from "./operator-commands.js";
import type { Model, Real } from "./model.js";
import { TakeBackup } from "./restore.js";
import { runModel, runSequence, settle, SETTLE_MS } from "./run.js";
import { CreateExternal, CreateManaged, DeleteTenant } from "./tenant-commands.js";
import { describeTotals, faultCount } from "./totals.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack.stop();
});

const number = (name: string): number | undefined => {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : Number(v);
};

/** A regression's step: waits until every invariant holds (the stack is quiet). */
class Quiet {
  check = () => true;
  async run(m: Model, r: Real) {
    const found = await settle(r.stack, m, SETTLE_MS);
    if (found.length > 0) throw new Error(`not quiet before the fault:\n  ${found.join("\n  ")}`);
  }
  toString = () => "quiet()";
}

/**
 * The shrunk sequences the model found, kept as they were printed (fault, its position, the
 * commands) and run first, so that each stays fixed whatever the generators become.
 */
describe("regressions: sequences the model shrank", () => {
  it.each([
    {
      name: "a ready external tenant whose worker RoleBinding is revoked is no longer ready (seed -324924573, product fix 6763e19)",
      fault: new InjectFault("kill-worker", 0),
      at: 2,
      commands: [new CreateExternal(0, "ok", true), new Grants(0, "revoke")],
    },
    {
      name: "the worker survives a PostgreSQL restart (seed -1018325604, product fix 0b906be)",
      fault: new InjectFault("restart-postgres", 0),
      at: 2,
      commands: [new CreateExternal(0, "allow-all", true), new AddForeignPolicy(0)],
    },
    {
      name: "two PostgreSQL failovers in a row: the processes follow the promoted standby each time (issue 40)",
      fault: new InjectFault("failover-postgres", 0),
      at: 1,
      // A create between the two, on the server that was the standby (a URL naming only the
      // first server fails it), and after the second one, back on the first server's port.
      commands: [
        new CreateManaged(0),
        new CreateManaged(1),
        new InjectFault("failover-postgres", 0),
        new CreateExternal(0, "ok", true),
      ],
    },
    {
      name: "a restored backup: tenants created since are orphans (kept, reported), one deleted through OCC since is degraded, its namespace not recreated (issue 40)",
      fault: new InjectFault("restore-backup", 0),
      at: 8,
      commands: [
        new CreateManaged(0),
        new CreateManaged(1),
        new Quiet(),
        new TakeBackup(),
        new CreateManaged(0),
        new CreateExternal(1, "ok", true),
        new DeleteTenant(0, 0),
        new Quiet(),
      ],
      orphans: 2,
      missing: 1,
    },
    {
      name: "deleting a tenant whose selected namespace carries another tenant's marker fails permanently and leaves it untouched (seed -1224182469)",
      fault: new InjectFault("kill-api", 0),
      at: 0,
      commands: [new CreateExternal(0, "foreign-marker", false), new DeleteTenant(0, 0)],
    },
  ] as const)("$name", async (c) => {
    const { fault, at, commands } = c;
    const exitsBefore = stack.unexpectedExits.length;
    const m = await runSequence(stack, fault, at, commands, SETTLE_MS);
    expect(faultCount(m.faultKinds)).toBe(
      1 + commands.filter((c) => c instanceof InjectFault).length,
    );
    expect(m.commands).toBe(commands.length);
    if ("orphans" in c) {
      expect(m.orphans.length).toBe(c.orphans);
      const missing = m.tenants.filter((t) =>
        t.expect.includes("degraded:KUBERNETES_NAMESPACE_MISSING"),
      );
      expect(missing.length).toBe(c.missing);
    }
    expect(stack.unexpectedExits.slice(exitsBefore)).toEqual([]);
  });
});

it("every sequence of commands and faults leaves every invariant holding", async () => {
  const runs = number("OCC_MODEL_RUNS") ?? 100;
  const seed = number("OCC_MODEL_SEED");
  const path = process.env.OCC_MODEL_PATH;
  const replayPath = process.env.OCC_MODEL_REPLAY_PATH;
  const started = Date.now();
  const totals = await runModel(stack, {
    runs,
    ...(seed !== undefined ? { seed } : {}),
    ...(path !== undefined && path !== "" ? { path } : {}),
    ...(replayPath !== undefined && replayPath !== "" ? { replayPath } : {}),
    ...(process.env.OCC_MODEL_VERBOSE !== undefined
      ? {
          log: (l: string) => {
            console.log(l);
          },
        }
      : {}),
  });
  // test/model/shards.ts reads this line back from each shard of a parallel run.
  console.log(
    `[model] ${describeTotals(totals)} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  expect(totals.violations).toBe(0);
  expect(faultCount(totals.faultKinds)).toBeGreaterThanOrEqual(totals.sequences);
});
