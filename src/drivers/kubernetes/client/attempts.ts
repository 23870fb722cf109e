/**
 * One attempt of a plain request, answered as status, body and `Retry-After`: on the undici pool
 * of the transport's own TLS material (`tls-pool.ts`), or through `node:https` when the
 * kubeconfig brought an agent of its own (client-node's, for a proxy or an exec plugin). Both
 * end the attempt after the deadline (`DeadlineError`) and at once when the transport closes
 * (`ClientClosedError`).
 */
import { request, type RequestOptions } from "node:https";
import type { Pool } from "undici";
import { ClientClosedError, type KubeVerb } from "./errors.js";
import { parseRetryAfter } from "./response.js";

export interface AttemptResponse {
  readonly status: number;
  readonly body: string;
  readonly retryAfterMs: number | undefined;
}

/** What every attempt is given besides the request itself. */
export interface Attempt {
  readonly verb: KubeVerb;
  readonly path: string;
  readonly timeoutMs: number;
  /** The transport's close. */
  readonly closing: AbortSignal;
}

/** No answer within the attempt's deadline. */
export class DeadlineError extends Error {
  override readonly name = "DeadlineError";
}

/** One attempt on `pool`. */
export async function pooledAttempt(
  a: Attempt,
  pool: Pool,
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT",
  opts: RequestOptions,
  payload: Buffer | undefined,
): Promise<AttemptResponse> {
  // The attempt's end, if it came first, is the abort's reason.
  const abort = new AbortController();
  const disarm = armEnd(a, (end) => {
    abort.abort(end);
  });
  try {
    const res = await pool.request({
      method,
      path: a.path,
      headers: headerRecord(opts.headers),
      ...(payload !== undefined ? { body: payload } : {}),
      signal: abort.signal,
    });
    const body = await res.body.text();
    const retryAfter = res.headers["retry-after"];
    return {
      status: res.statusCode,
      body,
      retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    };
  } catch (err) {
    const ended: unknown = abort.signal.reason;
    if (ended instanceof DeadlineError || ended instanceof ClientClosedError) throw ended;
    throw err;
  } finally {
    disarm();
  }
}

/** One attempt through `node:https` with the agent in `opts`. */
export function httpsAttempt(
  a: Attempt,
  url: URL,
  opts: RequestOptions,
  payload: Buffer | undefined,
): Promise<AttemptResponse> {
  return new Promise<AttemptResponse>((resolve, reject) => {
    const req = request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        disarm();
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
        });
      });
    });
    const disarm = armEnd(a, (end) => {
      req.destroy(end);
    });
    req.on("close", disarm);
    req.on("error", (err) => {
      disarm();
      reject(err);
    });
    req.end(payload);
  });
}

/**
 * Calls `end` with the attempt's end when it comes: its deadline, or the transport's close.
 * Returns the disarm (idempotent), called once the attempt has ended by itself.
 */
function armEnd(a: Attempt, end: (why: DeadlineError | ClientClosedError) => void): () => void {
  const timer = setTimeout(() => {
    end(new DeadlineError(`no response within ${String(a.timeoutMs)} ms`));
  }, a.timeoutMs);
  const closed = () => {
    end(new ClientClosedError(a.verb, a.path));
  };
  a.closing.addEventListener("abort", closed, { once: true });
  return () => {
    clearTimeout(timer);
    a.closing.removeEventListener("abort", closed);
  };
}

/** The request's headers as a record of strings (what the kubeconfig set included). */
function headerRecord(headers: RequestOptions["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || Array.isArray(headers)) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}
