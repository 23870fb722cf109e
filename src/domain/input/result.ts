/**
 * A tiny success-or-error union used by the parse and validate helpers of the domain layer.
 *
 * Domain functions never throw for expected bad input (a malformed ID, a reserved name, a
 * wrong configuration value); they return a `Result` so the caller must look at the failure
 * branch. Exceptions stay reserved for programming errors.
 */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a success value. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** Wraps a failure. */
export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
