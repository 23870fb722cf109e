/**
 * The one place errors become responses (control-plane.md §2): every failure — a service's
 * `ServiceError`, a schema violation, a body Fastify refused, an unknown route, a wrong method,
 * an unavailable database, a bug — is answered with the error envelope and a code from the
 * table in `errors.ts`. Server-side failures are logged once, here; client errors are not.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DependencyUnavailableError, ServiceError } from "../services/errors.js";
import { DETAIL_CODES, type DetailCode, type ErrorDetail } from "../contract/errors.js";
import { statusOf } from "./errors.js";
import { REQUEST_ID_HEADER } from "./request-context.js";
import type { ErrorEnvelope } from "../contract/envelopes.js";
import { fieldOf, oneOf } from "../domain/input/unknowns.js";

interface FastifyLikeError {
  readonly statusCode?: unknown;
  readonly validation?: unknown;
  readonly validationContext?: unknown;
}

function asFastifyLike(err: unknown): FastifyLikeError {
  return typeof err === "object" && err !== null ? err : {};
}

function isDetailCode(value: unknown): value is DetailCode {
  return oneOf(DETAIL_CODES, value) !== undefined;
}

/** Schema failures reported by `validation.ts`, as envelope details under `/body`, `/querystring`… */
function validationDetails(err: FastifyLikeError): ErrorDetail[] {
  const context = typeof err.validationContext === "string" ? err.validationContext : "request";
  const list: unknown[] = Array.isArray(err.validation) ? err.validation : [];
  return list.map((v) => {
    const instancePath = fieldOf(v, "instancePath");
    const path = typeof instancePath === "string" ? instancePath : "";
    const keyword = fieldOf(v, "keyword");
    return {
      path: `/${context}${path}`,
      code: isDetailCode(keyword) ? keyword : "invalid_value",
    };
  });
}

/** The sentences naming a broken rule (display names), beyond the bare detail codes. */
function validationRules(err: FastifyLikeError): string[] {
  const list: unknown[] = Array.isArray(err.validation) ? err.validation : [];
  const rules = list.flatMap((v) => {
    const message = fieldOf(v, "message");
    return typeof message === "string" && message !== fieldOf(v, "keyword") ? [message] : [];
  });
  return [...new Set(rules)];
}

/**
 * Maps any thrown value to an {@link ServiceError}. Fastify's own 4xx errors are mapped by status;
 * only `ServiceError`, the database guard's error and Fastify's are trusted — anything else is 500.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof DependencyUnavailableError) {
    return new ServiceError(
      "DEPENDENCY_UNAVAILABLE",
      err.outcomeUnknown
        ? "The database did not confirm the outcome of this request; check before retrying."
        : undefined,
      { cause: err },
    );
  }
  const f = asFastifyLike(err);
  if (f.validation !== undefined) {
    const details = validationDetails(f);
    const fields = [...new Set(details.map((d) => `${d.path} (${d.code})`))].join(", ");
    const rules = validationRules(f);
    const message = `Invalid request: ${fields}.${rules.length === 0 ? "" : ` ${rules.join(" ")}`}`;
    return new ServiceError("INVALID_REQUEST", message, { details, cause: err });
  }
  const status = typeof f.statusCode === "number" ? f.statusCode : 500;
  if (status === 413) return new ServiceError("PAYLOAD_TOO_LARGE", undefined, { cause: err });
  if (status === 415) return new ServiceError("UNSUPPORTED_MEDIA_TYPE", undefined, { cause: err });
  if (status === 404) return new ServiceError("NOT_FOUND", undefined, { cause: err });
  if (status === 405) return new ServiceError("METHOD_NOT_ALLOWED", undefined, { cause: err });
  if (status === 503) return new ServiceError("DEPENDENCY_UNAVAILABLE", undefined, { cause: err });
  if (status >= 400 && status < 500) {
    return new ServiceError(
      "INVALID_REQUEST",
      "The request could not be read as JSON of the expected form.",
      { cause: err },
    );
  }
  return new ServiceError("INTERNAL_ERROR", undefined, { cause: err });
}

/**
 * Seconds a client should wait before retrying a `DEPENDENCY_UNAVAILABLE` (sent as
 * `Retry-After`): a PostgreSQL restart or failover is over within seconds (docs/operations.md,
 * "Database failover"), and one second keeps a retrying client from hammering a pool that is
 * reconnecting.
 */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 1;

/** Sends `error` in the envelope (a retryable 503 with `Retry-After`). */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ServiceError,
): FastifyReply {
  const body: ErrorEnvelope = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined || error.details.length === 0
        ? {}
        : { details: [...error.details] }),
    },
    meta: { requestId: request.id },
  };
  if (error.code === "DEPENDENCY_UNAVAILABLE") {
    void reply.header("retry-after", String(DEPENDENCY_RETRY_AFTER_SECONDS));
  }
  return reply
    .status(statusOf(error.code))
    .header(REQUEST_ID_HEADER, request.id)
    .type("application/json; charset=utf-8")
    .send(body);
}

/**
 * Fastify's `frameworkErrors` option: failures the router reports before any route or hook
 * runs — a URL that does not decode, a path parameter longer than the router accepts.
 */
export function frameworkErrorHandler(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    err.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? "A path parameter is too long."
      : "The request URL could not be decoded.";
  void sendError(request, reply, new ServiceError("INVALID_REQUEST", message, { cause: err }));
}

/** Installs the error handler on `app`. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    const error = toServiceError(err);
    if (statusOf(error.code) >= 500) {
      request.log.error({ err, code: error.code }, "request failed");
    }
    return sendError(request, reply, error);
  });
}
