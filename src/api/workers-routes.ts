/**
 * `GET /workers`: what each worker process last reported; the use case is
 * `src/services/operations/workers.ts`.
 */
import { WorkerReportListSchema } from "../contract/workers.js";
import { listWorkersAsAdministrator } from "../services/operations/workers.js";
import { callerOf, envelope } from "./request-context.js";
import { DataEnvelope } from "../contract/envelopes.js";
import { errorResponses, op, security, type ApiTag } from "./schemas.js";
import { dbRoutes } from "./iam/resource-routes.js";

export const workerRoutes = dbRoutes((app, db) => {
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
      return envelope(request, await listWorkersAsAdministrator(db, callerOf(request)));
    },
  );
});
