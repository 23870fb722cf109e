/** Resolves with the signal's name at the first SIGINT or SIGTERM. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/**
 * How long an orderly stop may take before {@link armShutdownDeadline} ends the process: more
 * than a worker's bound (its passes' drain, then everything closed: under 10 s), less than
 * Kubernetes' default grace period (30 s), after which the kubelet would SIGKILL it silently.
 */
export const SHUTDOWN_DEADLINE_MS = 20_000;

/**
 * Armed at the stop signal: should the orderly stop not have ended the process by `ms` (a
 * handle left open: a bug), `report` is told what still keeps the event loop alive and the
 * process exits with status 1. The timer itself keeps nothing alive.
 */
export function armShutdownDeadline(
  report: (activeResources: readonly string[]) => void,
  ms: number = SHUTDOWN_DEADLINE_MS,
): void {
  setTimeout(() => {
    report(process.getActiveResourcesInfo());
    process.exit(1);
  }, ms).unref();
}
