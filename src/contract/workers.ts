/** One worker's last report as `GET /workers` answers it (and `occ status` reads it). */
import { Type, type Static } from "@sinclair/typebox";
import { WORKER_STATES } from "../store/worker-reports.js";
import { DateTime, literalUnion, Nullable } from "./envelopes.js";

const RefusalSchema = Type.Object(
  {
    check: Type.String({ description: "The startup check that refused." }),
    code: Type.String({ description: "Its stable code." }),
    message: Type.String(),
    at: DateTime,
  },
  { additionalProperties: false },
);

export const WorkerReportSchema = Type.Object(
  {
    workerId: Type.String({ description: "`<host>:<pid>` of the worker process." }),
    state: literalUnion(WORKER_STATES),
    startedAt: DateTime,
    lastHeartbeatAt: DateTime,
    refusal: Nullable(RefusalSchema),
  },
  { additionalProperties: false },
);
export type WorkerReportView = Static<typeof WorkerReportSchema>;

/** `GET /workers`: every worker's last report, most recently heard-from first. */
export const WorkerReportListSchema = Type.Array(WorkerReportSchema);
