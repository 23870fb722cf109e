/**
 * The building blocks of every request and response of the OCC API: the `{ data, meta }` and
 * paged envelopes, the error envelope, paging parameters, and small schema helpers. Imported
 * by the server (route schemas) and by the CLI (to parse responses); types are derived from
 * these with `Static`, nothing is declared twice.
 */
import { Type } from "@sinclair/typebox";
import type { ObjectOptions, Static, TLiteral, TProperties, TSchema } from "@sinclair/typebox";
import { DETAIL_CODES, ERROR_CODES } from "./errors.js";
import { DISPLAY_NAME_FORMAT, PLAIN_TEXT_FORMAT } from "./formats.js";

/** A string that is one of `values` (an `enum` in the OpenAPI document). */
export function literalUnion<const V extends readonly string[]>(
  values: V,
  opts: { readonly description?: string } = {},
) {
  const literals: TLiteral<V[number]>[] = values.map((v) => Type.Literal(v));
  return Type.Union(literals, opts);
}

/** An object of exactly `properties`: any other property is refused (`additionalProperties: false`). */
export function Closed<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** `T | null`. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * Plain text of `minLength`–`maxLength` characters: a description, under the character rules of
 * the name policy (`domain/input/display-names.ts`, `checkDescription`). A refusal names the rule.
 */
export function PlainText(opts: {
  readonly minLength?: number;
  readonly maxLength: number;
  readonly description?: string;
}) {
  const policy =
    "Plain text: well-formed Unicode without control, bidirectional-control, format (Unicode Cf) or other invisible characters (default-ignorable code points, U+2800).";
  return Type.String({
    format: PLAIN_TEXT_FORMAT,
    minLength: opts.minLength ?? 0,
    maxLength: opts.maxLength,
    description: opts.description === undefined ? policy : `${opts.description} ${policy}`,
  });
}

/**
 * A display name of 1–`maxLength` characters under the name policy (`domain/input/display-names.ts`):
 * plain text without bidirectional controls, format or other invisible characters, no leading or
 * trailing whitespace and no whitespace but the plain space, in NFC, not mixing scripts whose
 * letters look alike (UTS #39 moderately restrictive). A refusal names the rule.
 */
export function DisplayName(opts: { readonly maxLength: number; readonly description?: string }) {
  const policy =
    "Display-name policy: no control, bidirectional-control, format (Unicode Cf) or other invisible characters (default-ignorable code points, U+2800), no leading or trailing whitespace, no whitespace but U+0020, NFC-normalised, well-formed Unicode, one script (Latin may be combined with Han and kana, Bopomofo or Hangul, or with one other script except Cyrillic and Greek).";
  return Type.String({
    format: DISPLAY_NAME_FORMAT,
    minLength: 1,
    maxLength: opts.maxLength,
    description: opts.description === undefined ? policy : `${opts.description} ${policy}`,
  });
}

/** An RFC 3339 instant, always sent as UTC with milliseconds. */
export const DateTime = Type.String({ format: "date-time" });

/** A pattern-checked ID. */
export function IdString(pattern: string, description: string) {
  return Type.String({ pattern, maxLength: 80, description });
}

export const MetaSchema = Closed({
  requestId: Type.String({ description: "The request's ID, also sent as x-request-id." }),
});

/** `{ data, meta }` around one resource. */
export function DataEnvelope<T extends TSchema>(data: T) {
  return Closed({ data, meta: MetaSchema });
}

export const PageMetaSchema = Closed({
  requestId: Type.String(),
  nextCursor: Nullable(
    Type.String({ description: "Pass as `cursor` for the next page; null on the last page." }),
  ),
});

/** `{ data: [...], meta: { requestId, nextCursor } }` around one page of a collection. */
export function PageEnvelope<T extends TSchema>(item: T) {
  return Closed({ data: Type.Array(item), meta: PageMetaSchema });
}

export const ErrorDetailSchema = Closed({ path: Type.String(), code: literalUnion(DETAIL_CODES) });

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: literalUnion(ERROR_CODES),
        message: Type.String({ maxLength: 256 }),
        details: Type.Optional(Type.Array(ErrorDetailSchema)),
      },
      { additionalProperties: false },
    ),
    meta: MetaSchema,
  },
  { $id: "ErrorEnvelope", additionalProperties: false },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

/** The query of a route that takes no query parameters. */
export const NoQuerySchema = Closed({});

/** `limit` and `cursor`, for every paged collection. */
export const PageQuerySchema = Closed({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" })),
});
export type PageQuery = Static<typeof PageQuerySchema>;
