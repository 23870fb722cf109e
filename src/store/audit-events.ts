/**
 * The audit trail (control-plane.md §6): append and page. The table refuses UPDATE, DELETE
 * and TRUNCATE, so this module has no other writes.
 *
 * A success event is appended with the caller's `Queryable` inside the mutation's transaction,
 * so both commit or neither does. A denial is appended on its own; if that fails the caller
 * answers 503, never 403. Callers must keep secret values out of `details`.
 */
import { defineTable, jsonObject, nullable, oneOf, text, timestamp } from "./columns.js";
import type { JsonObject, RowOf } from "./columns.js";
import { StatementParams, type GatedPart } from "./composed.js";
import type { Queryable } from "./db.js";
import { checkPageLimit, keysetPage } from "./paging.js";
import {
  AUDIT_EVENT_KINDS,
  AUDIT_OUTCOMES,
  type AuditOutcome,
} from "../domain/control-plane/vocabulary.js";

/** The `audit_events` table; {@link AuditEventRecord} is derived from it. */
export const auditEventsTable = defineTable("audit_events", {
  id: text,
  occurredAt: timestamp,
  kind: oneOf(AUDIT_EVENT_KINDS),
  actor: text,
  action: text,
  resourceKind: text,
  resourceId: nullable(text),
  outcome: oneOf(AUDIT_OUTCOMES),
  requestId: nullable(text),
  details: jsonObject,
});

export type AuditEventRecord = RowOf<typeof auditEventsTable.columns>;

const COLUMNS = auditEventsTable.select();

interface AuditEventFields {
  /** The authenticated principal, or the work's frozen actor for lifecycle events. */
  readonly actor: string;
  /** Dotted, lowercase: `namespaces.create`, `namespaces.lifecycle.ensure`. */
  readonly action: string;
  readonly resourceKind: string;
  /** Absent when a collection was addressed (e.g. a denied create). */
  readonly resourceId?: string;
  readonly requestId?: string;
  /** Authorization evidence and reason codes. Never a secret value. */
  readonly details?: JsonObject;
  /** Defaults to the transaction's time, the same instant as the mutation it records. */
  readonly occurredAt?: Date;
}

/** A new event. A denial always has outcome `denied`, and only a denial has it. */
export type NewAuditEvent = AuditEventFields &
  (
    | { readonly kind: "authorization_denial"; readonly outcome: "denied" }
    | {
        readonly kind: "mutation" | "lifecycle";
        readonly outcome: Exclude<AuditOutcome, "denied">;
      }
  );

const INSERT_COLUMNS =
  "occurred_at, kind, actor, action, resource_kind, resource_id, outcome, request_id, details";

/** The values of `event` for {@link INSERT_COLUMNS}, added to `p`. */
function eventValues(p: StatementParams, event: NewAuditEvent): string {
  return [
    `COALESCE(${p.add(event.occurredAt ?? null)}::timestamptz, now())`,
    p.add(event.kind),
    p.add(event.actor),
    p.add(event.action),
    p.add(event.resourceKind),
    p.add(event.resourceId ?? null),
    p.add(event.outcome),
    p.add(event.requestId ?? null),
    `${p.add(JSON.stringify(event.details ?? {}))}::jsonb`,
  ].join(", ");
}

/** Appends one event with the caller's `Queryable` and returns it as stored. */
export async function appendAuditEvent(
  q: Queryable,
  event: NewAuditEvent,
): Promise<AuditEventRecord> {
  const p = new StatementParams();
  const res = await q.query(
    `INSERT INTO audit_events (${INSERT_COLUMNS})
     VALUES (${eventValues(p, event)})
     RETURNING ${COLUMNS}`,
    p.values,
  );
  return auditEventsTable.decode(res.rows[0]);
}

/**
 * {@link appendAuditEvent} as part of a composed statement (`composed.ts`): the event is
 * appended only when the statement's gate row was inserted, in the same transaction.
 */
export function auditGated(event: NewAuditEvent): GatedPart {
  return (p, gate, name) => [
    {
      name: `${name}_event`,
      sql: `INSERT INTO audit_events (${INSERT_COLUMNS})
            SELECT ${eventValues(p, event)} FROM ${gate}
            RETURNING id`,
    },
  ];
}

/** Where a page of {@link listAuditEvents} ended; pass it back as `before`. */
export interface AuditCursor {
  readonly occurredAt: Date;
  readonly id: string;
}

export interface ListAuditEventsOptions {
  /** Page size, 1–1000. */
  readonly limit: number;
  readonly before?: AuditCursor;
  /** Only events about this resource. */
  readonly resource?: { readonly kind: string; readonly id?: string };
}

export interface AuditEventPage {
  readonly items: readonly AuditEventRecord[];
  /** Set when older events may follow. */
  readonly next: AuditCursor | null;
}

/** Events newest first, by keyset paging on (occurred_at, id). */
export async function listAuditEvents(
  q: Queryable,
  opts: ListAuditEventsOptions,
): Promise<AuditEventPage> {
  checkPageLimit("listAuditEvents", opts.limit);
  const res = await q.query(
    `SELECT ${COLUMNS} FROM audit_events
     WHERE ($1::timestamptz IS NULL OR (occurred_at, id) < ($1::timestamptz, $2::uuid))
       AND ($3::text IS NULL OR resource_kind = $3::text)
       AND ($4::text IS NULL OR resource_id = $4::text)
     ORDER BY occurred_at DESC, id DESC
     LIMIT $5`,
    [
      opts.before?.occurredAt ?? null,
      opts.before?.id ?? null,
      opts.resource?.kind ?? null,
      opts.resource?.id ?? null,
      opts.limit + 1,
    ],
  );
  return keysetPage(
    res.rows.map((r) => auditEventsTable.decode(r)),
    opts.limit,
    (last) => ({ occurredAt: last.occurredAt, id: last.id }),
  );
}
