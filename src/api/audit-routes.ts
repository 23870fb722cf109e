/**
 * `GET /audit-events` (control-plane.md §2, §6): the audit trail, newest first, paged, for
 * administrators. Reading it is itself not audited unless denied.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { listAuditEvents, type AuditEventRecord } from "../store/audit-events.js";
import type { Db } from "../store/db.js";
import { ServiceError } from "../services/errors.js";
import { administer } from "../services/iam/administer.js";
import { decodeCursor, encodeCursor, pageLimit } from "../services/cursor.js";
import { PageEnvelope } from "../contract/envelopes.js";
import { AuditEventSchema, AuditQuerySchema, type AuditEventView } from "../contract/audit.js";
import { errorResponses, op, security, type ApiTag } from "./schemas.js";
import { callerOf, pageEnvelope } from "./request-context.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isUuid = (v: unknown): v is string => typeof v === "string" && UUID.test(v);

function presentAuditEvent(e: AuditEventRecord): AuditEventView {
  return {
    id: e.id,
    occurredAt: e.occurredAt.toISOString(),
    kind: e.kind,
    actor: e.actor,
    action: e.action,
    resourceKind: e.resourceKind,
    resourceId: e.resourceId,
    outcome: e.outcome,
    requestId: e.requestId,
    details: e.details,
  };
}

export const auditRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
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
      const q = request.query;
      if (q.resourceId !== undefined && q.resourceKind === undefined) {
        throw new ServiceError("INVALID_REQUEST", "resourceId needs resourceKind.", {
          details: [{ path: "/querystring/resourceKind", code: "required" }],
        });
      }
      const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isUuid);
      const page = await administer(
        db,
        callerOf(request),
        { action: "audit_events.list", resourceKind: "audit_event" },
        () =>
          listAuditEvents(db, {
            limit: pageLimit(q.limit),
            ...(before === undefined ? {} : { before: { occurredAt: before.time, id: before.id } }),
            ...(q.resourceKind === undefined
              ? {}
              : {
                  resource: {
                    kind: q.resourceKind,
                    ...(q.resourceId === undefined ? {} : { id: q.resourceId }),
                  },
                }),
          }),
      );
      const next = page.next === null ? null : encodeCursor(page.next.occurredAt, page.next.id);
      return pageEnvelope(request, page.items.map(presentAuditEvent), next);
    },
  );
  done();
};
