import { spawn } from "node:child_process";

/**
 * BENCH_P1_PERF=<path>: a system-wide `perf record -g` over OCC's P1 window at each size, written
 * to `<path>-<size>` (read it with `perf report -i <file> --comm postgres`, for instance). A
 * diagnostic: perf's own CPU lands in the bench's figures of that window.
 */
export async function startPerfRecord(tenants: number): Promise<{ stop(): Promise<void> } | null> {
  const out = process.env.BENCH_P1_PERF;
  if (out === undefined || out === "") return null;
  const perf = spawn("perf", ["record", "-a", "-g", "-F", "999", "-o", `${out}-${tenants}`], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => perf.once("exit", resolve));
  await new Promise((resolve) => setTimeout(resolve, 500)); // perf opens its buffers first
  return {
    async stop() {
      perf.kill("SIGINT");
      await exited;
    },
  };
}
