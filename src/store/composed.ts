/**
 * One statement built from several modules' writes: a row insert, and further writes that
 * happen only when that row was inserted, as data-modifying CTEs. One statement is one round
 * trip and its own transaction (all or nothing), where BEGIN, one statement per write and
 * COMMIT were as many round trips — each waking the database and the caller again.
 */
import type { SqlParam } from "./db.js";

/** The values of one composed statement: each part adds its own and writes the `$n` it gets. */
export class StatementParams {
  private readonly list: SqlParam[] = [];

  get values(): readonly SqlParam[] {
    return this.list;
  }

  /** Adds `value` and returns its placeholder. */
  add(value: SqlParam): string {
    this.list.push(value);
    return `$${String(this.list.length)}`;
  }
}

/** A named CTE of a composed statement. */
export interface Cte {
  readonly name: string;
  readonly sql: string;
}

/**
 * A write that runs only when the gate CTE (`gate`, the inserted row) has a row. `name` is
 * the prefix for the CTEs the part defines (unique within the statement).
 */
export type GatedPart = (params: StatementParams, gate: string, name: string) => readonly Cte[];

/**
 * `WITH <gate> AS (<first>), <parts' CTEs> SELECT <gate>.* FROM <gate>`. Every part CTE is
 * referenced by the final SELECT, so a part's plain SELECT (e.g. a `pg_notify`) runs as well
 * as its data-modifying CTEs (which always run).
 */
export function composeGated(
  params: StatementParams,
  first: string,
  parts: readonly GatedPart[],
  gate = "inserted",
): string {
  const ctes = parts.flatMap((part, i) => part(params, gate, `p${String(i)}`));
  if (ctes.length === 0) return first;
  const withs = [`${gate} AS (${first})`, ...ctes.map((c) => `${c.name} AS (${c.sql})`)];
  const ran = ctes.map((c) => `(SELECT count(*) FROM ${c.name}) AS ${c.name}_rows`);
  return `WITH ${withs.join(",\n")}\nSELECT ${gate}.*, ${ran.join(", ")} FROM ${gate}`;
}
