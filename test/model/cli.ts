/**
 * `npm run test:model -- [--runs N] [--seed S [--path P [--replay-path R]]] [--verbose]`: runs
 * the R5 model project with that many sequences, or replays the failure fast-check printed: its
 * seed and path, and the `replayPath` printed after the counterexample's commands (fast-check
 * needs it to rebuild a shrunk command list; without it a long path cannot be replayed).
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

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
  },
});
const env: NodeJS.ProcessEnv = { ...process.env };
if (values.runs !== undefined) env.OCC_MODEL_RUNS = values.runs;
if (values.seed !== undefined) env.OCC_MODEL_SEED = values.seed;
if (values.path !== undefined) env.OCC_MODEL_PATH = values.path;
if (values["replay-path"] !== undefined) env.OCC_MODEL_REPLAY_PATH = values["replay-path"];
if (values.verbose === true) env.OCC_MODEL_VERBOSE = "1";
const res = spawnSync("npx", ["vitest", "run", "--project", "model"], { stdio: "inherit", env });
process.exit(res.status ?? 1);
