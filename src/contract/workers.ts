/** One worker's last report as `GET /workers` answers it (and `occ status` reads it). */
import { Type, type Static } from "@sinclair/typebox";
import { WORKER_STATES } from "../domain/control-plane/vocabulary.js";
import { Closed, DateTime, literalUnion, Nullable } from "./envelopes.js";

const RefusalSchema = Closed({
  check: Type.String({ description: "The startup check that refused." }),
  code: Type.String({ description: "Its stable code." }),
  message: Type.String(),
  at: DateTime,
});

export const WorkerReportSchema = Closed({
  workerId: Type.String({ description: "`<host>:<pid>` of the worker process." }),
  state: literalUnion(WORKER_STATES),
  startedAt: DateTime,
  lastHeartbeatAt: DateTime,
  refusal: Nullable(RefusalSchema),
});
export type WorkerReportView = Static<typeof WorkerReportSchema>;

/** `GET /workers`: every worker's last report, most recently heard-from first. */
export const WorkerReportListSchema = Type.Array(WorkerReportSchema);
