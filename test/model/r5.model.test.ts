/**
 * R5 (spec/quality.md §3): model-based random sequences with faults against the real stack —
 * kube-apiserver + kube-controller-manager, PostgreSQL, `occ api` ×2 and `occ worker` ×2.
 * The count comes from OCC_MODEL_RUNS (CI: 200, from the seed tools/test.sh fixes); OCC_MODEL_SEED,
 * OCC_MODEL_PATH and OCC_MODEL_REPLAY_PATH replay a failure
 * (`npm run test:model -- --seed <n> --path <p> --replay-path <r>`). See docs/reliability.md.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startStack, type Stack } from "../harness/stack.js";
import { runModel } from "./run.js";

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

it("every sequence of commands and faults leaves every invariant holding", async () => {
  const runs = number("OCC_MODEL_RUNS") ?? 200;
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
  console.log(
    `[model] ${totals.sequences} sequences, ${totals.commands} commands, ${totals.faults} faults, ` +
      `${totals.violations} violations in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  expect(totals.violations).toBe(0);
  expect(totals.faults).toBeGreaterThanOrEqual(totals.sequences);
});
