/**
 * What a worker process tells the API about itself (`worker_reports`): a heartbeat while it
 * runs, and — when a startup check refuses — which check, its stable code and the message, so
 * `GET /workers` and `occ status` show why a worker is not running without reading its log.
 * Reporting is best effort and bounded in time: it never keeps a refused worker from exiting
 * with its own message, and never stops a running one.
 */
import { hostname } from "node:os";
import type { Logger } from "pino";
import { ConfigurationError } from "../config/installation-config.js";
import type { Db } from "../store/db.js";
import { SchemaOutdatedError } from "../store/schema-version.js";
import {
  recordWorkerHeartbeat,
  recordWorkerRefusal,
  recordWorkerStopped,
  type WorkerRefusal,
} from "../store/worker-reports.js";
import { STARTUP_MESSAGES, StartupRefusedError } from "../services/preprovisioned/startup.js";

/** The startup checks a worker runs, in order; a refusal names the one that refused. */
export const WORKER_STARTUP_CHECKS = [
  /** The Installation configuration file and `OCC_PREPROVISIONED_NAMESPACE` parse. */
  "configuration",
  /** The profile's prerequisites (preprovisioned.md §2; no execution cluster). */
  "profile",
  /** Every migration of this release is applied. */
  "schema-version",
  /** The drivers start: the preprovisioned namespace verifies, Kubernetes answers. */
  "drivers",
] as const;
export type WorkerStartupCheck = (typeof WORKER_STARTUP_CHECKS)[number];

/** The stable codes of a startup refusal. */
export const WORKER_REFUSAL_CODES = {
  configuration: "CONFIGURATION_INVALID",
  prerequisites: "PREPROVISIONED_PREREQUISITES_MISSING",
  executionCluster: "EXECUTION_CLUSTER_UNSUPPORTED",
  namespace: "KUBERNETES_OWNERSHIP_CONFLICT",
  schema: "DATABASE_SCHEMA_OUTDATED",
  failed: "STARTUP_FAILED",
} as const;

/** This process's worker ID, as it claims work (`<host>:<pid>`). */
export function workerIdOf(pid = process.pid): string {
  return `${hostname()}:${pid}`;
}

/** What refused, from the check that was running and what it threw. */
export function workerRefusalOf(check: WorkerStartupCheck, err: unknown): WorkerRefusal {
  const message = err instanceof Error ? err.message : String(err);
  const code =
    err instanceof ConfigurationError
      ? WORKER_REFUSAL_CODES.configuration
      : err instanceof SchemaOutdatedError
        ? WORKER_REFUSAL_CODES.schema
        : err instanceof StartupRefusedError
          ? check === "profile"
            ? message === STARTUP_MESSAGES.executionClusterUnsupported
              ? WORKER_REFUSAL_CODES.executionCluster
              : WORKER_REFUSAL_CODES.prerequisites
            : WORKER_REFUSAL_CODES.namespace
          : WORKER_REFUSAL_CODES.failed;
  return { check, code, message };
}

async function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`no answer within ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Records the refusal (at most `timeoutMs`); a failure to record is logged, not thrown. */
export async function reportWorkerRefusal(
  db: Db,
  workerId: string,
  refusal: WorkerRefusal,
  logger: Logger,
  timeoutMs = 5_000,
): Promise<void> {
  try {
    await bounded(recordWorkerRefusal(db, workerId, refusal), timeoutMs);
  } catch (err) {
    logger.warn({ err, refusal }, "could not record the startup refusal in the database");
  }
}

/** A running heartbeat; `stop` ends it and marks the worker stopped. */
export interface WorkerHeartbeat {
  stop(): Promise<void>;
}

/** Marks the worker running now and every `intervalMs`; failures are logged, never thrown. */
export async function startWorkerHeartbeat(
  db: Db,
  workerId: string,
  logger: Logger,
  intervalMs = 10_000,
): Promise<WorkerHeartbeat> {
  const beat = async (starting: boolean) => {
    try {
      await bounded(recordWorkerHeartbeat(db, workerId, { starting }), intervalMs);
    } catch (err) {
      logger.warn({ err }, "could not record the worker heartbeat");
    }
  };
  await beat(true);
  let last = Promise.resolve();
  const timer = setInterval(() => {
    last = beat(false);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await last;
      try {
        await bounded(recordWorkerStopped(db, workerId), intervalMs);
      } catch (err) {
        logger.warn({ err }, "could not record the worker's stop");
      }
    },
  };
}
