/**
 * Listing the workers (`GET /workers`): what each worker process last reported — its
 * heartbeat, and when a startup check refused, the check, its stable code, the message and the
 * time — so an operator sees why no work moves without reading worker logs. Administrators
 * only; the most recently heard-from workers first.
 */
import type { WorkerReportView } from "../../contract/workers.js";
import type { Db } from "../../store/db.js";
import { listWorkerReports, type WorkerReportRecord } from "../../store/worker-reports.js";
import type { Caller } from "../authorization.js";
import { administer } from "../iam/administer.js";

/** How many workers one answer lists. */
const MAX_WORKERS = 200;

function presentWorker(r: WorkerReportRecord): WorkerReportView {
  return {
    workerId: r.workerId,
    state: r.state,
    startedAt: r.startedAt.toISOString(),
    lastHeartbeatAt: r.heartbeatAt.toISOString(),
    refusal:
      r.refusedCheck === null ||
      r.refusalCode === null ||
      r.refusalMessage === null ||
      r.refusedAt === null
        ? null
        : {
            check: r.refusedCheck,
            code: r.refusalCode,
            message: r.refusalMessage,
            at: r.refusedAt.toISOString(),
          },
  };
}

/** The workers as an administrator reads them (a denial is audited by `administer`). */
export async function listWorkersAsAdministrator(
  db: Db,
  caller: Caller,
): Promise<WorkerReportView[]> {
  const rows = await administer(
    db,
    caller,
    { action: "workers.list", resourceKind: "worker" },
    () => listWorkerReports(db, MAX_WORKERS),
  );
  return rows.map(presentWorker);
}
