/**
 * `GET /workers`: what each worker process last reported (`worker_reports`) — its heartbeat,
 * and when a startup check refused, the check, its stable code, the message and the time — so
 * an operator sees why no work moves without reading worker logs. Administrators only; the
 * most recently heard-from workers first.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Db } from "../store/db.js";
import { listWorkerReports, type WorkerReportRecord } from "../store/worker-reports.js";
import { WorkerReportListSchema, type WorkerReportView } from "../contract/workers.js";
import { administer } from "../services/iam/administer.js";
import { callerOf, envelope } from "./request-context.js";
import { DataEnvelope } from "../contract/envelopes.js";
import { errorResponses, op, security, type ApiTag } from "./schemas.js";

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

export const workerRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.get(
    "/workers",
    {
      schema: {
        tags: ["workers"] satisfies ApiTag[],
        security,
        ...op(
          "listWorkers",
          "List workers",
          "Each worker's last heartbeat and startup refusal, most recent first.",
        ),
        response: { 200: DataEnvelope(WorkerReportListSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const rows = await administer(
        db,
        callerOf(request),
        { action: "workers.list", resourceKind: "worker" },
        () => listWorkerReports(db, MAX_WORKERS),
      );
      return envelope(request, rows.map(presentWorker));
    },
  );
  done();
};
