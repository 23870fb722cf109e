/**
 * How an OpenShell gateway call fails, apart from the gRPC client itself: code that only tells
 * failures apart (the Sandbox Driver's outcomes) imports this and never loads gRPC, which
 * `gateway-client.ts` loads only for an Installation that configures the gateway.
 */

/** Why a gateway call failed. */
export const GATEWAY_FAILURES = [
  /** Unreachable, overloaded, cancelled or an internal error: try again later. */
  "unavailable",
  /** The deadline passed. */
  "timeout",
  /** The name is taken (create). */
  "already-exists",
  /** Authentication, permission, arguments, or any other refusal. */
  "rejected",
] as const;
export type GatewayFailure = (typeof GATEWAY_FAILURES)[number];

/** A failed gateway call. */
export class GatewayError extends Error {
  override readonly name = "GatewayError";
  constructor(
    readonly category: GatewayFailure,
    readonly grpcCode: number | undefined,
    message: string,
    opts: { readonly cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}
