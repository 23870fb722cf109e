/**
 * The API's one JSON body parser, replacing Fastify's: it reads the raw bytes, so it can refuse
 * what a plain `JSON.parse` would silently change (control-plane.md §2, "Request bodies"):
 *
 * - bytes that are not UTF-8 (400; never replaced with U+FFFD);
 * - nesting deeper than {@link MAX_BODY_DEPTH} (400, checked on the text before parsing);
 * - numbers that do not round-trip through a double — `1e400`, `-0`, 20-digit integers (400);
 * - strings or keys holding NUL or an unpaired surrogate, `__proto__` keys (400);
 * - a key twice in one object (400 naming it): `JSON.parse` would keep the last silently.
 *
 * Everything else about the body — fields, types, document limits — is the route's schema's
 * and the service's concern.
 */
import type { FastifyInstance } from "fastify";
import {
  findDuplicateKey,
  findValueProblem,
  MAX_BODY_DEPTH,
  numberRoundTrips,
  scanJson,
  type JsonValueProblem,
} from "../domain/input/json-documents.js";
import { ServiceError } from "../services/errors.js";

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const PROBLEM_TEXT: Readonly<Record<JsonValueProblem["problem"], string>> = {
  nul_character: "holds a NUL character (U+0000), which cannot be stored",
  unpaired_surrogate:
    "holds an unpaired surrogate (not well-formed Unicode), which cannot be stored",
  prototype_key: "holds a __proto__ or constructor.prototype key",
};

function invalid(message: string, path = "/body"): ServiceError {
  return new ServiceError("INVALID_REQUEST", message, {
    details: [{ path, code: "invalid_value" }],
  });
}

/** Shows at most 40 characters of a number token (it is the caller's own input). */
function shown(token: string): string {
  return token.length <= 40 ? token : `${token.slice(0, 39)}…`;
}

/** A key as JSON text (control characters escaped), at most 40 characters of it. */
function shownKey(key: string): string {
  const points = Array.from(JSON.stringify(key));
  return points.length <= 40 ? points.join("") : `${points.slice(0, 39).join("")}…`;
}

/** Parses a JSON body under the rules of the module comment; throws `ServiceError` (400). */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) {
    throw invalid("The request body is empty: send a JSON document, or no Content-Type.");
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw invalid("The request body is not valid UTF-8.");
  }
  const scan = scanJson(text, MAX_BODY_DEPTH);
  if (scan.depth > MAX_BODY_DEPTH) {
    throw invalid(`The request body nests deeper than the limit of ${MAX_BODY_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("The request body is not valid JSON.");
  }
  const number = scan.numbers.find((n) => !numberRoundTrips(n));
  if (number !== undefined) {
    throw invalid(
      `The number ${shown(number)} cannot be stored exactly (JSON numbers must be finite, ` +
        "not -0, and exact as a 64-bit double); send it as a string.",
    );
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    const at = `/body${duplicate.path}`;
    throw invalid(
      `${at}: the key ${shownKey(duplicate.key)} appears twice in one object; send each key once.`,
      at,
    );
  }
  const problem = findValueProblem(value);
  if (problem !== undefined) {
    const at = `/body${problem.path}`;
    throw invalid(`${at} ${PROBLEM_TEXT[problem.problem]}.`, at);
  }
  return value;
}

/** Replaces Fastify's JSON parser on `app` with {@link parseJsonBody}. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === "string" ? Buffer.from(body) : body));
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)), undefined);
    }
  });
}
