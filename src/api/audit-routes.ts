/**
 * `GET /audit-events` (control-plane.md §2, §6): the audit trail, newest first, paged, for
 * administrators. Reading it is itself not audited unless denied.
 */
import { listAuditEventsAsAdministrator } from "../services/operations/audit-events.js";
import { PageEnvelope } from "../contract/envelopes.js";
import { AuditEventSchema, AuditQuerySchema } from "../contract/audit.js";
import { errorResponses, op, security, type ApiTag } from "./schemas.js";
import { callerOf, pageEnvelope } from "./request-context.js";
import { dbRoutes } from "./iam/resource-routes.js";

export const auditRoutes = dbRoutes((app, db) => {
  app.get(
    "/audit-events",
    {
      schema: {
        tags: ["audit"] satisfies ApiTag[],
        security,
        ...op(
          "listAuditEvents",
          "List audit events",
          "Audit events, newest first; filter by resource kind (and ID).",
        ),
        querystring: AuditQuerySchema,
        response: { 200: PageEnvelope(AuditEventSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const page = await listAuditEventsAsAdministrator(db, callerOf(request), request.query);
      return pageEnvelope(request, page.items, page.next);
    },
  );
});
