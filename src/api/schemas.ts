/**
 * Route-schema helpers of the HTTP layer: the error responses every route declares, and the
 * schemas the app registers by `$id`. The envelopes themselves are the contract's
 * (`contract/envelopes.ts`).
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { ErrorEnvelopeSchema, type ErrorEnvelope } from "../contract/envelopes.js";
import type { ErrorStatus } from "./errors.js";

/**
 * Error responses for a route's `response` schema: every route can answer 400, 401, 500 and
 * 503; `statuses` adds the ones particular to it.
 */
export function errorResponses(
  ...statuses: ErrorStatus[]
): Record<number, typeof ErrorEnvelopeRef> {
  const all = new Set<number>([400, 401, 500, 503, ...statuses]);
  return Object.fromEntries([...all].sort().map((s) => [s, ErrorEnvelopeRef]));
}

/** The security requirement of every route that takes an API key. */
export const security = [{ apiKey: [] }];

/**
 * The OpenAPI description of a route that takes an API key: its tags, summary, path
 * parameters and responses (a route adds its body or querystring beside them).
 */
export function routeSchema<P extends TSchema, R extends object>(
  tags: string[],
  summary: string,
  params: P,
  response: R,
) {
  return { tags, security, summary, params, response };
}

/** A reference to the shared error envelope (one component in the OpenAPI document). */
const ErrorEnvelopeRef = Type.Unsafe<ErrorEnvelope>(Type.Ref("ErrorEnvelope"));

/** Schemas referenced by `$id`; the app registers them before any route. */
export const SHARED_SCHEMAS = [ErrorEnvelopeSchema] as const;
