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

/**
 * Error responses of a public route (no API key, so no 401): 400 (a query or a body it does not
 * take), 500 and 503, and the `statuses` particular to it.
 */
export function publicErrorResponses(
  ...statuses: ErrorStatus[]
): Record<number, typeof ErrorEnvelopeRef> {
  const all = new Set<number>([400, 500, 503, ...statuses]);
  return Object.fromEntries([...all].sort().map((s) => [s, ErrorEnvelopeRef]));
}

/**
 * The refusals of a body any route but `GET` and `HEAD` may be sent, whether it takes one or
 * not: 413 (over 64 KiB) and 415 (not JSON). `app.ts` adds them to every such route's responses.
 */
export function bodyRefusals(method: string | string[]): Record<number, typeof ErrorEnvelopeRef> {
  const methods = [method].flat();
  if (methods.every((m) => m === "GET" || m === "HEAD")) return {};
  return { 413: ErrorEnvelopeRef, 415: ErrorEnvelopeRef };
}

/**
 * The security requirement of every authenticated route: an API key, or a person's session
 * (the `occ_session` cookie; a state-changing request with it also needs the console's Origin).
 */
export const security = [{ apiKey: [] }, { session: [] }];

/** The security requirement of a public route: none. */
export const noSecurity: [] = [];

/**
 * The OpenAPI tags, each declared with its description in the document (`openapi.ts`). A
 * route's `tags` name one of them.
 */
export const API_TAGS = {
  health: "Liveness, readiness, metrics: public, for probes and scrapers.",
  namespaces: "Namespaces (tenants), each placed in exactly one Kubernetes namespace.",
  iam: "Principals, API keys, roles, bindings and restrictions.",
  audit: "The audit trail of every administered read and change.",
  workers: "The workers' heartbeats and startup refusals.",
  installation: "The Installation's profile and the admission policies present.",
  configurations: "A Namespace's Configurations, each kept in a ConfigMap of its namespace.",
  secrets: "A Namespace's Secrets, each kept in a Kubernetes Secret; values are never returned.",
  "service-accounts": "A Namespace's ServiceAccount records.",
  agents: "A Namespace's Agents and their immutable revisions.",
  auth: "Sign-in (password, OIDC, Google), sign-out, sessions and who the caller is.",
} as const;
export type ApiTag = keyof typeof API_TAGS;

/**
 * What the OpenAPI document says of one operation: a stable `operationId` (the method name of
 * generated clients: never rename one), a short summary and a description.
 */
export interface OperationDoc {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
}

/** An {@link OperationDoc}. */
export function op(operationId: string, summary: string, description: string): OperationDoc {
  return { operationId, summary, description };
}

/**
 * The OpenAPI description of a route that takes an API key: its tags, operation, path
 * parameters and responses (a route adds its body or querystring beside them).
 */
export function routeSchema<P extends TSchema, R extends object>(
  tags: ApiTag[],
  doc: OperationDoc,
  params: P,
  response: R,
) {
  return { tags, security, ...doc, params, response };
}

/** A reference to the shared error envelope (one component in the OpenAPI document). */
const ErrorEnvelopeRef = Type.Unsafe<ErrorEnvelope>(Type.Ref("ErrorEnvelope"));

/** Schemas referenced by `$id`; the app registers them before any route. */
export const SHARED_SCHEMAS = [ErrorEnvelopeSchema] as const;
