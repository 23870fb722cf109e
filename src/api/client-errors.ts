/**
 * Errors node's HTTP server meets before Fastify sees a request — a header with a character
 * HTTP does not allow, a URL and headers over 16 KiB (431), a request that does not arrive
 * within the request timeout (408), bytes that are not HTTP — answered in the same error
 * envelope as everything else (control-plane.md §2), with a fresh request ID. Installed as
 * Fastify's `clientErrorHandler`, which is node's `server.on('clientError')` listener.
 *
 * Also: requests that arrive while the server is closing, answered 503 in the envelope
 * (Fastify's own `return503OnClosing` answer is not the envelope).
 */
import type { FastifyInstance } from "fastify";
import type { Socket } from "node:net";
import { ServiceError } from "../services/errors.js";
import { statusOf } from "./errors.js";
import type { ErrorCode } from "../contract/errors.js";
import { newRequestId, REQUEST_ID_HEADER } from "./request-context.js";
import type { ErrorEnvelope } from "../contract/envelopes.js";

/** The largest request head (URL and headers) node accepts: its default `maxHeaderSize`. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The default time a whole request (head and body) may take to arrive. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

interface ClientError {
  readonly code?: unknown;
}

/** The envelope's code and message for a client error's node code (`HPE_…`, `ERR_…`). */
export function clientErrorOf(nodeCode: unknown): ServiceError {
  switch (nodeCode) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ServiceError("REQUEST_TIMEOUT");
    case "HPE_HEADER_OVERFLOW":
      return new ServiceError(
        "HEADERS_TOO_LARGE",
        `The request's URL and headers exceed ${MAX_HEADER_BYTES / 1024} KiB; shorten the URL (no long query strings).`,
      );
    case "HPE_INVALID_HEADER_TOKEN":
      return new ServiceError(
        "INVALID_REQUEST",
        "A request header holds a character HTTP does not allow (a control character?).",
      );
    case "HPE_INVALID_METHOD":
      return new ServiceError("INVALID_REQUEST", "The request method is not valid HTTP.");
    case "HPE_INVALID_URL":
      return new ServiceError("INVALID_REQUEST", "The request URL is not valid HTTP.");
    default:
      return new ServiceError("INVALID_REQUEST", "The request is not valid HTTP/1.1.");
  }
}

/** The raw HTTP/1.1 response carrying `error` in the envelope (the connection then closes). */
export function rawErrorResponse(error: ServiceError, requestId: string): string {
  const body: ErrorEnvelope = {
    error: { code: error.code, message: error.message },
    meta: { requestId },
  };
  const text = JSON.stringify(body);
  const status = statusOf(error.code);
  return [
    `HTTP/1.1 ${status} ${REASONS[error.code] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(text)}`,
    `${REQUEST_ID_HEADER}: ${requestId}`,
    "Connection: close",
    "",
    text,
  ].join("\r\n");
}

const REASONS: Partial<Record<ErrorCode, string>> = {
  INVALID_REQUEST: "Bad Request",
  REQUEST_TIMEOUT: "Request Timeout",
  HEADERS_TOO_LARGE: "Request Header Fields Too Large",
};

/**
 * Fastify's `clientErrorHandler`. Logs the node code only: the error's `rawPacket` holds the
 * request's bytes, an API key among them.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error, socket: Socket): void {
  const code = (err as ClientError).code;
  if (code === "ECONNRESET" || socket.destroyed) return;
  const error = clientErrorOf(code);
  const requestId = newRequestId();
  this.log.info({ reqId: requestId, code, status: statusOf(error.code) }, "client error");
  if (socket.writable) socket.write(rawErrorResponse(error, requestId));
  socket.destroy();
}

/** Answers requests that arrive once `app.close()` has begun with 503 in the envelope. */
export function registerClosingGuard(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (_request, reply, done) => {
    if (closing) {
      void reply.header("connection", "close");
      done(new ServiceError("DEPENDENCY_UNAVAILABLE", "The API is shutting down; retry shortly."));
      return;
    }
    done();
  });
}
