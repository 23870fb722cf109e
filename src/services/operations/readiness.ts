/**
 * Readiness (`/readyz`, control-plane.md §2): the database answers within the time allowed,
 * and — given the migrations this release needs — carries every one of them. Anything else is
 * a refusal with its stable code: `DEPENDENCY_UNAVAILABLE` or `DATABASE_SCHEMA_OUTDATED` (e.g.
 * a database restored from an older backup).
 */
import { ping, type Db } from "../../store/db.js";
import {
  readSchemaStatus,
  schemaOutdatedMessage,
  type RequiredSchema,
} from "../../store/schema-version.js";
import { ServiceError } from "../errors.js";

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves when the database is ready for this release; throws a `ServiceError` otherwise. */
export async function checkReadiness(
  db: Db,
  schema: RequiredSchema | undefined,
  timeoutMs: number,
): Promise<void> {
  const status = await withTimeout(
    schema === undefined ? ping(db).then(() => null) : readSchemaStatus(db, schema),
    timeoutMs,
  ).catch((err: unknown) => {
    throw new ServiceError("DEPENDENCY_UNAVAILABLE", "The database does not answer.", {
      cause: err,
    });
  });
  if (status !== null && status.missing.length > 0) {
    throw new ServiceError("DATABASE_SCHEMA_OUTDATED", schemaOutdatedMessage(status));
  }
}
