/**
 * `npm run test:model -- [--runs N] [--seed S [--path P [--replay-path R]]] [--verbose]`: runs
 * the R5 model project with that many sequences, or replays the failure fast-check printed: its
 * seed and path, and the `replayPath` printed after the counterexample's commands (fast-check
 * needs it to rebuild a shrunk command list; without it a long path cannot be replayed).
 * `--parallel K` splits the runs over K stacks at once (test/model/shards.ts).
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { runShards } from "./shards.js";

// fast-check prints negative seeds, and parseArgs reads `--seed -5` as two options: join them.
const argv = process.argv.slice(2);
const args: string[] = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i] ?? "";
  const next = argv[i + 1];
  if (arg.startsWith("--") && next !== undefined && /^-\d+$/.test(next)) {
    args.push(`${arg}=${next}`);
    i++;
  } else {
    args.push(arg);
  }
}
const { values } = parseArgs({
  args,
  options: {
    runs: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    "replay-path": { type: "string" },
    verbose: { type: "boolean" },
    parallel: { type: "string" },
  },
});
const parallel = Number(values.parallel ?? "1");
if (!Number.isInteger(parallel) || parallel < 1) {
  console.error(`--parallel must be a whole number of shards ≥ 1, got "${values.parallel ?? ""}"`);
  process.exit(2);
}
if (parallel > 1 && values.path !== undefined) {
  console.error("--path replays one case on one stack: run it without --parallel");
  process.exit(2);
}
const env: NodeJS.ProcessEnv = { ...process.env };
if (values.runs !== undefined) env.OCC_MODEL_RUNS = values.runs;
if (values.seed !== undefined) env.OCC_MODEL_SEED = values.seed;
if (values.path !== undefined) env.OCC_MODEL_PATH = values.path;
if (values["replay-path"] !== undefined) env.OCC_MODEL_REPLAY_PATH = values["replay-path"];
if (values.verbose === true) env.OCC_MODEL_VERBOSE = "1";
if (parallel > 1) {
  const runs = Number(values.runs ?? "200");
  if (!Number.isInteger(runs) || runs < parallel) {
    console.error(
      `--runs must be a whole number ≥ --parallel (${parallel}), got "${values.runs ?? ""}"`,
    );
    process.exit(2);
  }
  const seed =
    values.seed !== undefined ? Number(values.seed) : (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
  process.exit(await runShards({ runs, seed, parallel }, env));
}
const res = spawnSync("npx", ["vitest", "run", "--project", "model"], { stdio: "inherit", env });
process.exit(res.status ?? 1);
