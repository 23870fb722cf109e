/**
 * What each worker process last said about itself (`worker_reports`, migration 0009): started,
 * heartbeat, stopped — or refused to start, with the check that refused, its stable code and
 * the operator-facing message. `GET /workers` and `occ status` read it; nothing else depends
 * on it, so a failed write here never stops a worker.
 */
import {
  defineRow,
  defineTable,
  nullable,
  numeric,
  oneOf,
  text,
  timestamp,
  type RowOf,
} from "./columns.js";
import type { Queryable } from "./db.js";
import { WORKER_STATES } from "../domain/control-plane/vocabulary.js";

export const workerReportsTable = defineTable("worker_reports", {
  workerId: text,
  state: oneOf(WORKER_STATES),
  startedAt: timestamp,
  heartbeatAt: timestamp,
  refusedCheck: nullable(text),
  refusalCode: nullable(text),
  refusalMessage: nullable(text),
  refusedAt: nullable(timestamp),
});

export type WorkerReportRecord = RowOf<typeof workerReportsTable.columns>;

const COLUMNS = workerReportsTable.select();

/** The longest stored refusal message (the column's limit). */
const MAX_MESSAGE = 4000;

/** A worker's startup refusal: which check, its stable code, and the message. */
export interface WorkerRefusal {
  readonly check: string;
  readonly code: string;
  readonly message: string;
}

/** Marks `workerId` running (a new start or a heartbeat) and clears any earlier refusal. */
export async function recordWorkerHeartbeat(
  q: Queryable,
  workerId: string,
  opts: { readonly starting?: boolean } = {},
): Promise<void> {
  await q.query(
    `INSERT INTO worker_reports (worker_id, state) VALUES ($1, 'running')
     ON CONFLICT (worker_id) DO UPDATE SET
       state = 'running', heartbeat_at = now(),
       started_at = CASE WHEN $2 THEN now() ELSE worker_reports.started_at END,
       refused_check = NULL, refusal_code = NULL, refusal_message = NULL, refused_at = NULL`,
    [workerId, opts.starting === true],
  );
}

/** Records that `workerId` refused to start. */
export async function recordWorkerRefusal(
  q: Queryable,
  workerId: string,
  refusal: WorkerRefusal,
): Promise<void> {
  const message = Array.from(refusal.message).slice(0, MAX_MESSAGE).join("");
  await q.query(
    `INSERT INTO worker_reports
       (worker_id, state, refused_check, refusal_code, refusal_message, refused_at)
     VALUES ($1, 'refused', $2, $3, $4, now())
     ON CONFLICT (worker_id) DO UPDATE SET
       state = 'refused', heartbeat_at = now(), refused_check = $2, refusal_code = $3,
       refusal_message = $4, refused_at = now()`,
    [workerId, refusal.check, refusal.code, message],
  );
}

/** Marks `workerId` stopped (a clean shutdown). */
export async function recordWorkerStopped(q: Queryable, workerId: string): Promise<void> {
  await q.query(
    "UPDATE worker_reports SET state = 'stopped', heartbeat_at = now() WHERE worker_id = $1 AND state = 'running'",
    [workerId],
  );
}

/** The most recently heard-from workers first, at most `limit`. */
export async function listWorkerReports(
  q: Queryable,
  limit: number,
): Promise<WorkerReportRecord[]> {
  const res = await q.query(
    `SELECT ${COLUMNS} FROM worker_reports ORDER BY heartbeat_at DESC, worker_id LIMIT $1`,
    [limit],
  );
  return res.rows.map((r) => workerReportsTable.decode(r));
}

const heartbeatAgeRow = defineRow("worker_reports (heartbeat age)", { age: nullable(numeric) });

/** Seconds since the newest heartbeat of a running worker; `null` when none is running. */
export async function newestRunningHeartbeatAge(q: Queryable): Promise<number | null> {
  const res = await q.query(
    `SELECT EXTRACT(EPOCH FROM now() - max(heartbeat_at)) AS age
       FROM worker_reports WHERE state = 'running'`,
  );
  return heartbeatAgeRow.decodeFirst(res.rows)?.age ?? null;
}
