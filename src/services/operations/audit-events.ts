/**
 * Reading the audit trail (`GET /audit-events`, control-plane.md §2, §6): newest first, paged,
 * filtered by resource kind (and ID), for administrators. Reading it is itself not audited
 * unless denied.
 */
import type { AuditEventView } from "../../contract/audit.js";
import { listAuditEvents, type AuditEventRecord } from "../../store/audit-events.js";
import type { Db } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { decodeCursor, encodeCursor, pageLimit } from "../cursor.js";
import { ServiceError } from "../errors.js";
import { administer } from "../iam/administer.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isUuid = (v: unknown): v is string => typeof v === "string" && UUID.test(v);

/** The query of one page. */
export interface AuditQuery {
  readonly limit?: number;
  readonly cursor?: string;
  readonly resourceKind?: string;
  readonly resourceId?: string;
}

export function presentAuditEvent(e: AuditEventRecord): AuditEventView {
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

/**
 * One page of the audit trail and the cursor of the next (`null` at the end).
 *
 * @throws ServiceError INVALID_REQUEST when `resourceId` comes without `resourceKind`.
 */
export async function listAuditEventsAsAdministrator(
  db: Db,
  caller: Caller,
  q: AuditQuery,
): Promise<{ readonly items: AuditEventView[]; readonly next: string | null }> {
  if (q.resourceId !== undefined && q.resourceKind === undefined) {
    throw new ServiceError("INVALID_REQUEST", "resourceId needs resourceKind.", {
      details: [{ path: "/querystring/resourceKind", code: "required" }],
    });
  }
  const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isUuid);
  const page = await administer(
    db,
    caller,
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
  return {
    items: page.items.map(presentAuditEvent),
    next: page.next === null ? null : encodeCursor(page.next.occurredAt, page.next.id),
  };
}
