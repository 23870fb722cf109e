/**
 * The one error class services throw (control-plane.md §2). It is transport-neutral: it
 * carries a stable code from the contract's vocabulary, a message for people (at most 256
 * characters, never a secret or another tenant's data) and optional per-input details. The
 * HTTP layer maps the code to a status in one table (`api/errors.ts`); the CLI and bootstrap
 * branch on the code, never on the text.
 */
import { MAX_MESSAGE_LENGTH, type ErrorCode, type ErrorDetail } from "../contract/errors.js";

/** Messages for errors that carry nothing more specific. */
export const DEFAULT_MESSAGES: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: "The request is invalid.",
  UNAUTHENTICATED:
    "Sign in first (occ login, or the console), or send Authorization: Bearer <api key>.",
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
  EXPECTATION_FAILED:
    'The only Expect header the API supports is "Expect: 100-continue"; send that or none.',
  INTERNAL_ERROR: "An internal error occurred; it has been logged.",
  DEPENDENCY_UNAVAILABLE: "A service OCC depends on is unavailable; retry later.",
  KUBERNETES_PERMISSION_MISSING:
    "The API lacks its RoleBinding in the tenant's Kubernetes namespace; grant it (no restart needed).",
  KUBERNETES_OWNERSHIP_CONFLICT:
    "A Kubernetes object is not the one OCC wrote; it is never repaired silently.",
  KUBERNETES_NAMESPACE_MISSING: "The tenant's Kubernetes namespace does not exist yet.",
  DATABASE_SCHEMA_OUTDATED: "The database lacks a migration of this release: run `occ migrate`.",
  TOO_MANY_REQUESTS: "Too many attempts; wait a minute and try again.",
};

/** Cuts `message` to {@link MAX_MESSAGE_LENGTH} code points, marking the cut with "…". */
export function clipMessage(message: string): string {
  const points = Array.from(message);
  if (points.length <= MAX_MESSAGE_LENGTH) return message;
  return `${points.slice(0, MAX_MESSAGE_LENGTH - 1).join("")}…`;
}

/** A refusal or failure with a stable code; thrown by services and the HTTP layer alike. */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
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
}

/** True when `err` is a {@link ServiceError}. */
export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof ServiceError;
}

/** The database could not be used (503), raised by the guarded database handle. */
export { DependencyUnavailableError } from "../store/guarded-db.js";

/** `dependency` when this process has it; otherwise 503 `DEPENDENCY_UNAVAILABLE` with `missing`. */
export function configured<T>(dependency: T | undefined, missing: string): T {
  if (dependency === undefined) throw new ServiceError("DEPENDENCY_UNAVAILABLE", missing);
  return dependency;
}

/**
 * Refuses with 409 `RESOURCE_CONFLICT` and `message` when an insert found its name taken;
 * otherwise `result` is the insert's success.
 */
export function requireNameFree<T extends { readonly outcome: string }>(
  result: T,
  message: string,
): asserts result is Exclude<T, { readonly outcome: "name_in_use" }> {
  if (result.outcome === "name_in_use") throw new ServiceError("RESOURCE_CONFLICT", message);
}
