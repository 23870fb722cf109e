/**
 * A long R5 run split over several stacks at once (`npm run test:model -- --runs 2000
 * --parallel 3`). One stack keeps the 2-core machine about a quarter busy — most of a sequence
 * is waiting for processes to restart and passes to settle — so shards run side by side, each
 * a `model` vitest process with a stack of its own, its share of the runs and its own seed
 * (the base seed + its index), which is what `--seed` replays when that shard fails.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addTotals, describeTotals, emptyTotals, parseTotals } from "./totals.js";

export interface ShardPlan {
  readonly runs: number;
  readonly seed: number;
  readonly parallel: number;
}

export interface Shard {
  readonly index: number;
  readonly runs: number;
  readonly seed: number;
}

/** Splits `runs` over `parallel` shards; shard `i` explores the seed `seed + i` (as int32). */
export function planShards(plan: ShardPlan): Shard[] {
  const base = Math.floor(plan.runs / plan.parallel);
  return Array.from({ length: plan.parallel }, (_, index) => ({
    index,
    runs: base + (index < plan.runs % plan.parallel ? 1 : 0),
    seed: (plan.seed + index) | 0,
  }));
}

/** Sequences a shard's log reports done (vitest prefixes each console line with colour codes). */
export const sequencesIn = (log: string): number =>
  log.match(/sequence \d+: .* \(\d+ ms\)$/gm)?.length ?? 0;

/** Runs the shards, prints progress every minute and the summed totals; resolves the exit code. */
export async function runShards(plan: ShardPlan, env: NodeJS.ProcessEnv): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "occ-model-run-"));
  const shards = planShards(plan);
  const started = Date.now();
  console.log(
    `[model] ${plan.runs} sequences in ${shards.length} shards (seeds ${shards.map((s) => s.seed).join(", ")}); logs in ${dir}`,
  );
  const logOf = (s: Shard) => join(dir, `shard-${s.index}-seed-${s.seed}.log`);
  const exits = shards.map(async (s) => {
    // Staggered, so that the stacks do not all pick their free ports in the same instant.
    await new Promise((r) => setTimeout(r, s.index * 5_000));
    const out = createWriteStream(logOf(s));
    const child = spawn("npx", ["vitest", "run", "--project", "model"], {
      env: {
        ...env,
        OCC_MODEL_RUNS: String(s.runs),
        OCC_MODEL_SEED: String(s.seed),
        OCC_MODEL_VERBOSE: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Both streams into one file, which is ended (and flushed) once the child is gone, not
    // when the first of the two streams ends.
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const code = await new Promise<number>((resolve) =>
      child.on("close", (c) => {
        resolve(c ?? 1);
      }),
    );
    await new Promise((resolve) => out.end(resolve));
    return code;
  });
  const progress = setInterval(() => {
    void Promise.all(shards.map((s) => readFile(logOf(s), "utf8").catch(() => ""))).then((logs) => {
      const done = logs.map(sequencesIn);
      const minutes = Math.round((Date.now() - started) / 60_000);
      console.log(
        `[model] ${done.reduce((a, b) => a + b, 0)} / ${plan.runs} sequences after ${minutes} min (${done.join(" + ")})`,
      );
    });
  }, 60_000);
  const codes = await Promise.all(exits);
  clearInterval(progress);

  const sum = emptyTotals();
  for (const s of shards) {
    const log = await readFile(logOf(s), "utf8").catch(() => "");
    // The line r5.model.test.ts prints at the end of a shard; a failed shard has none.
    const totals = parseTotals(log);
    if (totals !== null) addTotals(sum, totals);
    if (codes[s.index] !== 0 || totals === null) {
      console.log(`[model] shard ${s.index} (seed ${s.seed}) FAILED; its log ends:`);
      console.log(log.split("\n").slice(-80).join("\n"));
      console.log(
        `[model] whole log: ${logOf(s)}; replay it with the seed, path and replayPath ` +
          `fast-check printed there: npm run test:model -- --seed <n> --path <p> --replay-path <r>`,
      );
    }
  }
  console.log(
    `[model] all shards: ${describeTotals(sum)} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  return codes.every((c) => c === 0) && sum.sequences === plan.runs ? 0 : 1;
}
