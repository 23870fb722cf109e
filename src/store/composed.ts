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
 * A statement's own CTEs that read the gate, whose one row (if any) comes back beside the
 * gate's: its CTEs follow the parts' and `row` is left-joined to the gate in the final SELECT
 * (the settle and the slot's next claim, `transitions.ts`).
 */
export interface Joined {
  readonly ctes: readonly Cte[];
  readonly row: string;
}

/**
 * `WITH <gate> AS (<first>), <parts' CTEs> SELECT <gate>.* FROM <gate>`. Every part CTE is
 * referenced by the final SELECT, so a part's plain SELECT (e.g. a `pg_notify`) runs as well
 * as its data-modifying CTEs (which always run). With `joined`, its CTEs come last and its row's
 * columns follow the gate's.
 */
export function composeGated(
  params: StatementParams,
  first: string,
  parts: readonly GatedPart[],
  gate = "inserted",
  joined: Joined | null = null,
): string {
  const ctes = parts.flatMap((part, i) => part(params, gate, `p${String(i)}`));
  if (ctes.length === 0 && joined === null) return first;
  const all = [...ctes, ...(joined?.ctes ?? [])];
  const withs = withClause([{ name: gate, sql: first }, ...all]);
  const ran = ctes.map((c) => `(SELECT count(*) FROM ${c.name}) AS ${c.name}_rows`);
  const columns = [`${gate}.*`, ...ran, ...(joined === null ? [] : [`${joined.row}.*`])];
  const from = joined === null ? gate : `${gate} LEFT JOIN ${joined.row} ON true`;
  return `${withs}\nSELECT ${columns.join(", ")} FROM ${from}`;
}

/** `WITH <name> AS (<sql>), …` of `ctes`, in order. */
export function withClause(ctes: readonly Cte[]): string {
  return `WITH ${ctes.map((c) => `${c.name} AS (${c.sql})`).join(",\n")}`;
}
