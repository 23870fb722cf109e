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
 * "Plain text", the format of names and descriptions, is well-formed Unicode (no lone
 * surrogates, which PostgreSQL cannot store) without control characters (C0, DEL, C1, and the
 * line/paragraph separators some locales class as control): a value accepted here is one the
 * database's `!~ '[[:cntrl:]]'` CHECKs accept too, and it prints on one line.
 */
import type { FastifySchemaCompiler } from "fastify";
import { FormatRegistry, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { checkDisplayName, displayNameMessage } from "../domain/input/display-names.js";
import type { DetailCode } from "./errors.js";

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The TypeBox/OpenAPI `format` name for plain text. */
export const PLAIN_TEXT_FORMAT = "plain-text";

/**
 * The format of display names (the `name` of Namespaces, principals, roles, Secrets,
 * ServiceAccounts and Agents): plain text under the policy of `domain/input/display-names.ts`.
 */
export const DISPLAY_NAME_FORMAT = "display-name";

/** True when `value` is a display name under the policy. */
export function isDisplayName(value: string): boolean {
  return checkDisplayName(value).ok;
}

/** True when `value` is plain text (see the module comment). */
export function isPlainText(value: string): boolean {
  return !LONE_SURROGATE.test(value) && !CONTROL.test(value);
}

/** Length in code points, as PostgreSQL's `char_length` counts. */
export function codePointLength(value: string): number {
  return Array.from(value).length;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Registers the string formats the API's schemas use with TypeBox (a process-wide registry;
 * registering twice is harmless): `plain-text` and `date-time` (RFC 3339, a real instant).
 */
export function registerFormats(): void {
  FormatRegistry.Set(PLAIN_TEXT_FORMAT, isPlainText);
  FormatRegistry.Set(DISPLAY_NAME_FORMAT, isDisplayName);
  FormatRegistry.Set(
    "date-time",
    (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  );
}

/** The most details one error lists (the iterator is lazy; the rest are never computed). */
export const MAX_DETAILS = 20;

/** The closed mapping from TypeBox's error types to the API's detail codes. */
export function detailCodeOf(error: Pick<ValueError, "type">): DetailCode {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return "required";
    case ValueErrorType.ObjectAdditionalProperties:
      return "unknown_field";
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown:
    case ValueErrorType.StringPattern:
      return "invalid_format";
    case ValueErrorType.StringMinLength:
    case ValueErrorType.ArrayMinItems:
    case ValueErrorType.ObjectMinProperties:
      return "too_short";
    case ValueErrorType.StringMaxLength:
    case ValueErrorType.ArrayMaxItems:
    case ValueErrorType.ObjectMaxProperties:
      return "too_long";
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
      return "out_of_range";
    case ValueErrorType.Literal:
    case ValueErrorType.Union:
    case ValueErrorType.ArrayUniqueItems:
      return "invalid_value";
    default:
      return "invalid_type";
  }
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

/** The message of one failure: which display-name rule a value breaks, else the keyword. */
function failureMessage(error: ValueError, keyword: DetailCode, path: string): string {
  if (error.type !== ValueErrorType.StringFormat) return keyword;
  if ((error.schema as { format?: unknown }).format !== DISPLAY_NAME_FORMAT) return keyword;
  if (typeof error.value !== "string") return keyword;
  const checked = checkDisplayName(error.value);
  const field = path.split("/").pop() ?? "name";
  return checked.ok ? keyword : displayNameMessage(field === "" ? "name" : field, checked.error);
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
