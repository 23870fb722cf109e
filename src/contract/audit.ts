/** The audit trail as `GET /audit-events` answers it (control-plane.md §2, §6), and its query. */
import { Type, type Static } from "@sinclair/typebox";
import { AUDIT_EVENT_KINDS, AUDIT_OUTCOMES } from "../domain/control-plane/vocabulary.js";
import { Closed, DateTime, literalUnion, Nullable } from "./envelopes.js";

export const AuditEventSchema = Closed({
  id: Type.String(),
  occurredAt: DateTime,
  kind: literalUnion(AUDIT_EVENT_KINDS),
  actor: Type.String(),
  action: Type.String(),
  resourceKind: Type.String(),
  resourceId: Nullable(Type.String()),
  outcome: literalUnion(AUDIT_OUTCOMES),
  requestId: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
});
export type AuditEventView = Static<typeof AuditEventSchema>;

export const AuditQuerySchema = Closed({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" })),
  resourceKind: Type.Optional(Type.String({ pattern: "^[a-z][a-z0-9_]{0,62}$" })),
  resourceId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_:.-]+$" }),
  ),
});
