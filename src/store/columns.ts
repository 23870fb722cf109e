/**
 * Table definitions: one object per table that is at once the row type, the select list and
 * the decoder, so the TypeScript shape of a row cannot drift from the columns a query reads.
 *
 * A definition maps camelCase property names to codecs; the column name is the property name
 * in snake_case. Decoding checks every value, so a migration that changes a column's type or
 * vocabulary without its definition fails at the first read, naming the table and column,
 * instead of leaking a wrong value into the program.
 */
import { isPreprovisionedNamespaceId, type NamespaceId } from "../domain/placement/ids.js";

/** Any JSON value, as `jsonb` columns hold and both adapters parse. */
export type JsonValue =
  string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object (the shape `details`-style columns hold). */
export type JsonObject = { readonly [key: string]: JsonValue };

/** Turns one raw column value into a typed one, or throws a short message saying why not. */
export type Codec<T> = (value: unknown) => T;

/** The decoded type of a codec. */
export type Decoded<C> = C extends Codec<infer T> ? T : never;

/** A row type: every column of the definition, decoded and read-only. */
export type RowOf<C extends Columns> = { readonly [K in keyof C]: Decoded<C[K]> };

/** Column codecs by property name. */
export type Columns = Readonly<Record<string, Codec<unknown>>>;

/** Raised when a row read from the database does not match its table definition. */
export class RowDecodeError extends Error {
  override readonly name = "RowDecodeError";
}

/**
 * A result row as a record of its columns, undecoded, for a composed statement whose parts
 * decode their own columns (the claim and the target attached to it); throws unless `raw` is
 * a row object.
 */
export function rowObject(raw: unknown, what: string): Readonly<Record<string, unknown>> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new RowDecodeError(`${what}: expected a row object`);
  }
  return Object.fromEntries(Object.entries(raw));
}

export const text: Codec<string> = (value) => {
  if (typeof value !== "string") throw new Error(`expected text, got ${typeof value}`);
  return value;
};

/** `integer` columns (int4): both adapters return a JavaScript number. */
export const integer: Codec<number> = (value) => {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new Error(`expected an integer, got ${typeof value}`);
  }
  return value;
};

/** `boolean` columns and expressions (`EXISTS …`, comparisons). */
export const bool: Codec<boolean> = (value) => {
  if (typeof value !== "boolean") throw new Error(`expected a boolean, got ${typeof value}`);
  return value;
};

/**
 * A number the database may send as text: `count(*)` (bigint) and `numeric` (`EXTRACT`) come
 * from `pg` as strings and from PGlite as numbers; both decode to a finite number.
 */
export const numeric: Codec<number> = (value) => {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) {
    throw new Error(`expected a number, got ${typeof value}`);
  }
  return n;
};

/** `timestamptz` columns: both adapters return a `Date`. */
export const timestamp: Codec<Date> = (value) => {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new Error("expected a timestamp");
  }
  return value;
};

/** `jsonb` columns holding an object. */
export const jsonObject: Codec<JsonObject> = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("expected a JSON object");
  }
  return value as JsonObject;
};

/** Accepts SQL NULL as `null`. */
export function nullable<T>(codec: Codec<T>): Codec<T | null> {
  return (value) => (value === null ? null : codec(value));
}

/** A text column restricted to a closed vocabulary (which a CHECK also enforces). */
export function oneOf<const V extends readonly string[]>(values: V): Codec<V[number]> {
  return (value) => {
    if (typeof value !== "string" || !values.includes(value)) {
      throw new Error(`expected one of ${values.join(", ")}`);
    }
    return value;
  };
}

/** A text column whose values carry a brand after passing `guard`. */
export function branded<T extends string>(guard: (v: unknown) => v is T, what: string): Codec<T> {
  return (value) => {
    if (!guard(value)) throw new Error(`expected ${what}`);
    return value;
  };
}

/**
 * The Namespace ID of every table that refers to a Namespace, decoded once the same way (the
 * preprovisioned binding's pattern, the widest a stored ID may match).
 */
export const namespaceIdColumn: Codec<NamespaceId> = branded(
  isPreprovisionedNamespaceId,
  "a Namespace ID",
);

/** A table: its name, column list and row decoder, all derived from one definition. */
export interface Table<C extends Columns> {
  readonly name: string;
  readonly columns: C;
  /**
   * `a.col_one, a.col_two, …` (or unqualified without `alias`) for SELECT and RETURNING; with
   * `as`, each column is renamed `<as>col_one`, so that it cannot collide with another table's
   * columns in one result row.
   */
  select(alias?: string, as?: string): string;
  /**
   * Decodes one raw row (its columns renamed `<as>…` when `as` is given, as
   * {@link Table.select} named them); throws {@link RowDecodeError} naming the table and column.
   */
  decode(raw: unknown, as?: string): RowOf<C>;
  /** The first of `rows` decoded, or `undefined` when there is none (a lookup by key). */
  decodeFirst(rows: readonly unknown[]): RowOf<C> | undefined;
  /** Every row of `rows` decoded. */
  decodeAll(rows: readonly unknown[]): RowOf<C>[];
}

/** The column name of a property: `existingNamespace` → `existing_namespace`. */
export function columnName(property: string): string {
  return property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Defines a table from its column codecs (see the module comment). */
export function defineTable<const C extends Columns>(name: string, columns: C): Table<C> {
  const entries = Object.entries(columns).map(
    ([property, codec]) => [property, columnName(property), codec] as const,
  );
  const table: Table<C> = {
    name,
    columns,
    select(alias?: string, as?: string): string {
      const prefix = alias === undefined ? "" : `${alias}.`;
      const rename = (column: string) => (as === undefined ? "" : ` AS ${as}${column}`);
      return entries.map(([, column]) => prefix + column + rename(column)).join(", ");
    },
    decode(raw: unknown, as = ""): RowOf<C> {
      const source = rowObject(raw, name);
      const row: Record<string, unknown> = {};
      for (const [property, column, codec] of entries) {
        if (!(as + column in source)) {
          throw new RowDecodeError(`${name}.${column}: missing from the result`);
        }
        try {
          row[property] = codec(source[as + column]);
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          throw new RowDecodeError(`${name}.${column}: ${why}`, { cause: err });
        }
      }
      return row as RowOf<C>;
    },
    decodeFirst(rows: readonly unknown[]): RowOf<C> | undefined {
      const first = rows[0];
      return first === undefined ? undefined : table.decode(first);
    },
    decodeAll(rows: readonly unknown[]): RowOf<C>[] {
      return rows.map((raw) => table.decode(raw));
    },
  };
  return table;
}

/**
 * The shape of a result row that is not a table's (a projection, an aggregate, a check): the
 * same decoder as {@link defineTable}, named `what` in its errors. Its `select` lists the
 * columns for a statement that reads them by these names.
 */
export const defineRow: <const C extends Columns>(what: string, columns: C) => Table<C> =
  defineTable;
