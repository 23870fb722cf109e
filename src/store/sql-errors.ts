/**
 * Classifying database errors by SQLSTATE and constraint name — the fields both adapters put
 * on their errors — never by message text, which changes with server version and locale.
 */

/** The SQLSTATE codes the store reacts to. */
export const SQLSTATE = {
  uniqueViolation: "23505",
  checkViolation: "23514",
  foreignKeyViolation: "23503",
  notNullViolation: "23502",
} as const;

export type SqlState = (typeof SQLSTATE)[keyof typeof SQLSTATE];

/** The fields of a PostgreSQL error that classification reads. */
export interface DatabaseErrorFields {
  readonly code: string;
  readonly constraint?: string;
}

/** True when `err` carries a SQLSTATE (a server-reported error, from either adapter). */
export function isDatabaseError(err: unknown): err is DatabaseErrorFields {
  return (
    typeof err === "object" &&
    err !== null &&
    "code" in err &&
    typeof err.code === "string" &&
    /^[0-9A-Z]{5}$/.test(err.code)
  );
}

/**
 * True when `err` is the given SQLSTATE, and — when `constraint` is given — was raised by
 * that constraint (or trigger that names it).
 */
export function isSqlError(err: unknown, code: SqlState, constraint?: string): boolean {
  if (!isDatabaseError(err) || err.code !== code) return false;
  return constraint === undefined || err.constraint === constraint;
}
