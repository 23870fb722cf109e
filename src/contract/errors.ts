/**
 * The error vocabulary of the OCC API (control-plane.md §2), as the server sends it and the
 * CLI reads it: the stable codes programs branch on, and the closed set of detail codes that
 * say what is wrong with one input. Which HTTP status a code is answered with is the HTTP
 * layer's table (`api/errors.ts`); services throw `ServiceError` with these codes.
 */

/** Every error code the API answers with. */
export const ERROR_CODES = [
  "INVALID_REQUEST",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "RESOURCE_CONFLICT",
  "NAMESPACE_NOT_READY",
  "NAMESPACE_NOT_EMPTY",
  "REQUEST_TIMEOUT",
  "NAMESPACE_NOT_PLACEABLE",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "HEADERS_TOO_LARGE",
  "EXPECTATION_FAILED",
  "INTERNAL_ERROR",
  "DEPENDENCY_UNAVAILABLE",
  "KUBERNETES_PERMISSION_MISSING",
  "KUBERNETES_OWNERSHIP_CONFLICT",
  "KUBERNETES_NAMESPACE_MISSING",
  "DATABASE_SCHEMA_OUTDATED",
  "TOO_MANY_REQUESTS",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a detail says about one invalid input: a closed vocabulary. */
export const DETAIL_CODES = [
  "required",
  "unknown_field",
  "invalid_type",
  "invalid_format",
  "too_short",
  "too_long",
  "out_of_range",
  "invalid_value",
  "reserved",
] as const;
export type DetailCode = (typeof DETAIL_CODES)[number];

/** One invalid input: a JSON pointer into the request part (`/body/name`) and why. */
export interface ErrorDetail {
  readonly path: string;
  readonly code: DetailCode;
}

/** The longest message the API sends. */
export const MAX_MESSAGE_LENGTH = 256;
