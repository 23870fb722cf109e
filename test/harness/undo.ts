import { afterAll } from "vitest";

/**
 * A file's undo steps, run after its tests newest first (what was set up last is undone first,
 * and only what setup got to start): `const undo = undoAfterAll(); … undo(() => db.close());`.
 */
export function undoAfterAll(): (step: () => Promise<unknown>) => void {
  const steps: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of steps.reverse()) await step();
  });
  return (step) => {
    steps.push(step);
  };
}
