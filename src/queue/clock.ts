/**
 * Where the queue reads "now". Every time comparison the queue makes — is an item available,
 * has a lease expired, is a deadline past — happens in SQL against one `now` value per
 * statement, taken from this clock.
 *
 * - `"database"` (the default): PostgreSQL's `statement_timestamp()`. All workers then share the
 *   database server's clock, so a skewed worker host cannot shorten or stretch another
 *   worker's lease.
 * - an object with `now()`: that time is sent as a parameter instead, so tests can move time
 *   forward to test backoff, lease expiry and deadlines without sleeping.
 */
export type QueueClock = "database" | { readonly now: () => Date };

/** The parameter for {@link nowSql}: `null` lets the database supply the time. */
export function nowParam(clock: QueueClock): Date | null {
  return clock === "database" ? null : clock.now();
}

/** The SQL expression for "now", reading parameter `$index` (see {@link nowParam}). */
export function nowSql(index: number): string {
  return nowSqlOf(`$${index}`);
}

/** {@link nowSql} for a placeholder already allocated (`StatementParams.add`). */
export function nowSqlOf(placeholder: string): string {
  return `COALESCE(${placeholder}::timestamptz, statement_timestamp())`;
}
