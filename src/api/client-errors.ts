/**
 * Errors node's HTTP server meets before Fastify sees a request — a header with a character
 * HTTP does not allow, a URL and headers over 16 KiB (431), a request that does not arrive
 * within the request timeout (408), bytes that are not HTTP — answered in the same error
 * envelope as everything else (control-plane.md §2), with a fresh request ID. Installed as
 * Fastify's `clientErrorHandler`, which is node's `server.on('clientError')` listener.
 *
 * Also: requests that arrive while the server is closing, answered 503 in the envelope
 * (Fastify's own `return503OnClosing` answer is not the envelope); and the three refusals node
 * would otherwise make itself, with an empty body or none ({@link registerHttpRefusals}).
 */
import type { FastifyInstance } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ServiceError } from "../services/errors.js";
import { statusOf } from "./errors.js";
import type { ErrorCode } from "../contract/errors.js";
import { newRequestId, REQUEST_ID_HEADER } from "./request-context.js";
import type { ErrorEnvelope } from "../contract/envelopes.js";
import { errnoCodeOf } from "../domain/input/unknowns.js";

/** The largest request head (URL and headers) node accepts: its default `maxHeaderSize`. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The default time a whole request (head and body) may take to arrive. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * How often node looks for requests past their timeout: a timed-out request is answered up
 * to one interval late. Node's default (30 s), or a quarter of 30 s as before, let the
 * documented 30 s stretch to 37 s; a tenth of the timeout, between 50 ms and 1 s, keeps it
 * within 1 s (the check walks the open connections, nothing more).
 */
export function timeoutCheckIntervalMs(timeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(timeoutMs / 10)));
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

/** The envelope of `error` as JSON text. */
function envelopeText(error: ServiceError, requestId: string): string {
  const body: ErrorEnvelope = {
    error: { code: error.code, message: error.message },
    meta: { requestId },
  };
  return JSON.stringify(body);
}

/** The raw HTTP/1.1 response carrying `error` in the envelope (the connection then closes). */
export function rawErrorResponse(
  error: ServiceError,
  requestId: string,
  headers: Readonly<Record<string, string>> = {},
): string {
  const text = envelopeText(error, requestId);
  const status = statusOf(error.code);
  return [
    `HTTP/1.1 ${status} ${REASONS[error.code] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(text)}`,
    `${REQUEST_ID_HEADER}: ${requestId}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
    "",
    text,
  ].join("\r\n");
}

const REASONS: Partial<Record<ErrorCode, string>> = {
  INVALID_REQUEST: "Bad Request",
  METHOD_NOT_ALLOWED: "Method Not Allowed",
  REQUEST_TIMEOUT: "Request Timeout",
  EXPECTATION_FAILED: "Expectation Failed",
  HEADERS_TOO_LARGE: "Request Header Fields Too Large",
};

/**
 * Node's HTTP server answers three requests itself, before Fastify sees them: an HTTP/1.1
 * request without `Host` (400, empty body), an `Expect` other than `100-continue` (417, empty
 * body), and `CONNECT` (the connection closed without an answer). Here each gets the envelope
 * and an `x-request-id` like every other error:
 *
 * - `Host`: node's check is turned off (`requireHostHeader: false` in `buildApp`) and this
 *   `onRequest` hook, registered before authentication, refuses the request with 400;
 * - `Expect`: node's `checkExpectation` event, answered 417 `EXPECTATION_FAILED`;
 * - `CONNECT`: node's `connect` event, answered 405 `METHOD_NOT_ALLOWED` (the API is no proxy).
 *
 * The last two close the connection: the request's body, if any, is never read.
 */
export function registerHttpRefusals(app: FastifyInstance): void {
  app.addHook("onRequest", (request, _reply, done) => {
    if (request.raw.httpVersion === "1.1" && (request.headers.host ?? "") === "") {
      done(
        new ServiceError(
          "INVALID_REQUEST",
          "The request has no Host header, which HTTP/1.1 requires; send Host: <the API's host:port>.",
        ),
      );
      return;
    }
    done();
  });
  const refused = (error: ServiceError, method: string): string => {
    const requestId = newRequestId();
    app.log.info({ reqId: requestId, method, status: statusOf(error.code) }, "request refused");
    return requestId;
  };
  app.server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const error = new ServiceError("EXPECTATION_FAILED");
    const requestId = refused(error, req.method ?? "");
    const text = envelopeText(error, requestId);
    res.shouldKeepAlive = false;
    res
      .writeHead(statusOf(error.code), {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        [REQUEST_ID_HEADER]: requestId,
        connection: "close",
      })
      .end(text);
  });
  app.server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    const error = new ServiceError(
      "METHOD_NOT_ALLOWED",
      "CONNECT is not served: the API is not a proxy. Send the request itself (GET, POST, …).",
    );
    const requestId = refused(error, "CONNECT");
    socket.on("error", () => socket.destroy());
    socket.end(rawErrorResponse(error, requestId));
  });
}

/**
 * Fastify's `clientErrorHandler`. Logs the node code only: the error's `rawPacket` holds the
 * request's bytes, an API key among them.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error, socket: Socket): void {
  const code = errnoCodeOf(err);
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
