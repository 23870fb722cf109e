/**
 * The API's error vocabulary (control-plane.md §2): one table of stable codes and their HTTP
 * statuses, and the one error class services throw. Programs branch on `code`; `message` is
 * for people, at most 256 characters, and never carries a secret or another tenant's data.
 */

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
  INTERNAL_ERROR: 500,
  DEPENDENCY_UNAVAILABLE: 503,
  KUBERNETES_PERMISSION_MISSING: 503,
  KUBERNETES_OWNERSHIP_CONFLICT: 503,
  KUBERNETES_NAMESPACE_MISSING: 503,
  DATABASE_SCHEMA_OUTDATED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** Every code, in table order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

/** Messages for errors that carry nothing more specific. */
export const DEFAULT_MESSAGES: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: "The request is invalid.",
  UNAUTHENTICATED: "A valid API key is required: send Authorization: Bearer <api key>.",
  FORBIDDEN: "The caller is not permitted to do this.",
  NOT_FOUND: "No such resource.",
  METHOD_NOT_ALLOWED: "This method is not allowed on this resource.",
  RESOURCE_CONFLICT: "The request conflicts with the current state.",
  NAMESPACE_NOT_READY: "The Namespace is not ready.",
  NAMESPACE_NOT_EMPTY: "The Namespace still holds resources.",
  REQUEST_TIMEOUT: "The request did not arrive in time; send it again.",
  NAMESPACE_NOT_PLACEABLE: "This Installation can never place that Namespace.",
  PAYLOAD_TOO_LARGE: "The request body exceeds 64 KiB.",
  UNSUPPORTED_MEDIA_TYPE: "The request body must be application/json.",
  HEADERS_TOO_LARGE: "The request's URL and headers exceed 16 KiB.",
  INTERNAL_ERROR: "An internal error occurred; it has been logged.",
  DEPENDENCY_UNAVAILABLE: "A service OCC depends on is unavailable; retry later.",
  KUBERNETES_PERMISSION_MISSING:
    "The API lacks its RoleBinding in the tenant's Kubernetes namespace; grant it (no restart needed).",
  KUBERNETES_OWNERSHIP_CONFLICT:
    "A Kubernetes object is not the one OCC wrote; it is never repaired silently.",
  KUBERNETES_NAMESPACE_MISSING: "The tenant's Kubernetes namespace does not exist yet.",
  DATABASE_SCHEMA_OUTDATED: "The database lacks a migration of this release: run `occ migrate`.",
};

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

/** Cuts `message` to {@link MAX_MESSAGE_LENGTH} code points, marking the cut with "…". */
export function clipMessage(message: string): string {
  const points = Array.from(message);
  if (points.length <= MAX_MESSAGE_LENGTH) return message;
  return `${points.slice(0, MAX_MESSAGE_LENGTH - 1).join("")}…`;
}

/** An error the API answers with its code; thrown by services and route handlers. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;

  constructor(
    code: ErrorCode,
    message: string = DEFAULT_MESSAGES[code],
    opts: { readonly details?: readonly ErrorDetail[]; readonly cause?: unknown } = {},
  ) {
    super(clipMessage(message), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.details = opts.details;
  }

  get status(): ErrorStatus {
    return ERROR_STATUS[this.code];
  }
}

/** True when `err` is an {@link ApiError}. */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
