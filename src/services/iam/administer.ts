/**
 * The frame of every IAM administration request (control-plane.md §2: `installation:administer`
 * on every IAM route): authorize first — a denial is audited on its own and answered 403 —
 * then run the request; mutations run `mutate`, which commits the change and its audit event
 * in one transaction.
 */
import type { Db, Queryable } from "../../store/db.js";
import type { JsonObject } from "../../store/columns.js";
import {
  recordMutation,
  recordingDenials,
  requirePermission,
  type AuditSubject,
  type Caller,
  type Grant,
} from "../authorization.js";
import { ServiceError } from "../errors.js";

const ADMINISTER = { permission: { action: "administer", kind: "installation" } } as const;

/** Runs `body` once the caller is found to hold `installation:administer`. */
export async function administer<T>(
  db: Db,
  caller: Caller,
  subject: AuditSubject,
  body: (grant: Grant) => Promise<T>,
): Promise<T> {
  return recordingDenials(db, caller, async () => {
    const grant = await requirePermission(db, caller, ADMINISTER, subject);
    return body(grant);
  });
}

/** What a mutation returns: its result, and the ID and details its audit event records. */
export interface Mutation<T> {
  readonly result: T;
  readonly resourceId: string;
  readonly details?: JsonObject;
}

/** The record a delete step removed, or 404 naming what there is no such one of (`binding`). */
export function removedOr404<T>(gone: T | undefined, id: string, what: string): Mutation<T> {
  if (gone === undefined) throw new ServiceError("NOT_FOUND", `No such ${what}.`);
  return { result: gone, resourceId: id };
}

/**
 * An administered mutation: `change` runs in a transaction, and its audit event is appended
 * in the same transaction before it commits. `change` throws `ServiceError` to refuse (rolling
 * back), so a refused request leaves neither a change nor an event.
 */
export function mutate<T>(
  db: Db,
  caller: Caller,
  subject: AuditSubject,
  change: (tx: Queryable) => Promise<Mutation<T>>,
): Promise<T> {
  return administer(db, caller, subject, (grant) =>
    db.transaction(async (tx) => {
      const done = await change(tx);
      await recordMutation(
        tx,
        caller,
        { ...subject, resourceId: done.resourceId },
        grant,
        done.details,
      );
      return done.result;
    }),
  );
}

/**
 * An administered create (`POST` of an IAM collection): `create` runs in the mutation's
 * transaction, and `settle` turns its result into the created record and what the audit event
 * records, or throws `ServiceError` for a refusal (rolling back).
 */
export function administeredCreate<I, O, R>(
  subject: AuditSubject,
  create: (tx: Queryable, input: I) => Promise<O>,
  settle: (outcome: O) => Mutation<R>,
): (db: Db, caller: Caller, input: I) => Promise<R> {
  return (db, caller, input) =>
    mutate(db, caller, subject, async (tx) => settle(await create(tx, input)));
}
