/**
 * The one table from the stable error codes (`contract/errors.ts`) to HTTP statuses
 * (control-plane.md §2). Services throw `ServiceError` with a code; only the HTTP layer knows
 * which status answers it.
 */
import type { ErrorCode } from "../contract/errors.js";

/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RESOURCE_CONFLICT: 409,
  NAMESPACE_NOT_READY: 409,
  NAMESPACE_NOT_EMPTY: 409,
  REQUEST_TIMEOUT: 408,
  NAMESPACE_NOT_PLACEABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  EXPECTATION_FAILED: 417,
  INTERNAL_ERROR: 500,
  DEPENDENCY_UNAVAILABLE: 503,
  KUBERNETES_PERMISSION_MISSING: 503,
  KUBERNETES_OWNERSHIP_CONFLICT: 503,
  KUBERNETES_NAMESPACE_MISSING: 503,
  DATABASE_SCHEMA_OUTDATED: 503,
  TOO_MANY_REQUESTS: 429,
} as const satisfies Record<ErrorCode, number>;

export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** The HTTP status that answers `code`. */
export function statusOf(code: ErrorCode): ErrorStatus {
  return ERROR_STATUS[code];
}
