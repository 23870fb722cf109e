/**
 * The validator compiler for every route schema. Built on TypeBox's compiler, so a schema is
 * the single source of both the static type and the runtime check. Unlike Fastify's default
 * Ajv settings it never strips unknown properties (they are refused: 400) and never coerces a
 * body (`{"name": 1}` is refused, not turned into `"1"`); query strings and path parameters
 * arrive as text and are converted to the schema's types first.
 *
 * Each failure is reported as `{ keyword: DetailCode, instancePath }`, at most
 * {@link MAX_DETAILS} of them, which the error handler turns into the envelope's `details`.
 *
 * The string formats (plain text, display names, date-time) are the contract's
 * (`contract/formats.ts`).
 */
import type { FastifySchemaCompiler } from "fastify";
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import {
  checkDescription,
  checkDisplayName,
  displayNameMessage,
} from "../domain/input/display-names.js";
import { DISPLAY_NAME_FORMAT, PLAIN_TEXT_FORMAT, registerFormats } from "../contract/formats.js";
import { DETAIL_CODES, type DetailCode } from "../contract/errors.js";
import { fieldOf } from "../domain/input/unknowns.js";

/** The most details one error lists (the iterator is lazy; the rest are never computed). */
export const MAX_DETAILS = 20;

/** TypeBox's error types by the API's detail code they map to; any other is `invalid_type`. */
const ERROR_TYPES_BY_CODE: Readonly<Partial<Record<DetailCode, readonly ValueErrorType[]>>> = {
  required: [ValueErrorType.ObjectRequiredProperty],
  unknown_field: [ValueErrorType.ObjectAdditionalProperties],
  invalid_format: [
    ValueErrorType.StringFormat,
    ValueErrorType.StringFormatUnknown,
    ValueErrorType.StringPattern,
  ],
  too_short: [
    ValueErrorType.StringMinLength,
    ValueErrorType.ArrayMinItems,
    ValueErrorType.ObjectMinProperties,
  ],
  too_long: [
    ValueErrorType.StringMaxLength,
    ValueErrorType.ArrayMaxItems,
    ValueErrorType.ObjectMaxProperties,
  ],
  out_of_range: [
    ValueErrorType.IntegerMaximum,
    ValueErrorType.IntegerMinimum,
    ValueErrorType.IntegerExclusiveMaximum,
    ValueErrorType.IntegerExclusiveMinimum,
    ValueErrorType.NumberMaximum,
    ValueErrorType.NumberMinimum,
    ValueErrorType.NumberExclusiveMaximum,
    ValueErrorType.NumberExclusiveMinimum,
  ],
  invalid_value: [ValueErrorType.Literal, ValueErrorType.Union, ValueErrorType.ArrayUniqueItems],
};

const DETAIL_CODE_OF_TYPE: ReadonlyMap<ValueErrorType, DetailCode> = new Map(
  DETAIL_CODES.flatMap((code) =>
    (ERROR_TYPES_BY_CODE[code] ?? []).map((type) => [type, code] as const),
  ),
);

/** The closed mapping from TypeBox's error types to the API's detail codes. */
export function detailCodeOf(error: Pick<ValueError, "type">): DetailCode {
  return DETAIL_CODE_OF_TYPE.get(error.type) ?? "invalid_type";
}

/** One failure as Fastify carries it on `error.validation`. */
export interface ValidationFailure {
  readonly keyword: DetailCode;
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly params: Record<string, never>;
  /** The detail code, or for a display name the sentence naming the rule it breaks. */
  readonly message: string;
}

/**
 * The message of one failure: which rule of the name or description policy a value breaks
 * (naming the field, the code point and the fix), else the keyword.
 */
function failureMessage(error: ValueError, keyword: DetailCode, path: string): string {
  if (error.type !== ValueErrorType.StringFormat) return keyword;
  const format = fieldOf(error.schema, "format");
  const check =
    format === DISPLAY_NAME_FORMAT
      ? checkDisplayName
      : format === PLAIN_TEXT_FORMAT
        ? checkDescription
        : undefined;
  if (check === undefined || typeof error.value !== "string") return keyword;
  const checked = check(error.value);
  const field = path.split("/").pop() ?? "";
  return checked.ok ? keyword : displayNameMessage(field === "" ? "value" : field, checked.error);
}

/** Fastify's validator compiler hook (see the module comment). */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  registerFormats();
  const check = TypeCompiler.Compile(schema);
  const convert = httpPart !== "body";
  return (input: unknown) => {
    const value = convert ? Value.Convert(schema, input) : input;
    if (check.Check(value)) return { value };
    const failures: ValidationFailure[] = [];
    for (const error of check.Errors(value)) {
      const keyword = detailCodeOf(error);
      const path = error.path;
      // One detail per path and code; a missing field is `required`, not also a wrong type.
      const seen = failures.some(
        (f) => f.instancePath === path && (f.keyword === keyword || f.keyword === "required"),
      );
      if (!seen) {
        failures.push({
          keyword,
          instancePath: path,
          schemaPath: "",
          params: {},
          message: failureMessage(error, keyword, path),
        });
      }
      if (failures.length >= MAX_DETAILS) break;
    }
    return { error: failures };
  };
};
