import { Agent, request, type RequestOptions } from "node:https";
import type { KubeAccess } from "./kubeconfig.js";
import { sleep, settledOrAborted } from "./abortable.js";
import { ClientClosedError, KubeApiError, type KubeVerb } from "./errors.js";
import { parseJson, statusError } from "./response.js";
import { DeadlineError, httpsAttempt, pooledAttempt, type AttemptResponse } from "./attempts.js";
import { TlsPool } from "./tls-pool.js";
import type { RequestCounter } from "./request-counter.js";
import type { RequestLimiter } from "./rate-limiter.js";

export interface TransportOptions {
  /** Deadline of each request attempt. Default 10 s. */
  readonly timeoutMs?: number;
  /** Total attempts for a read (get/list) on 429, 5xx, timeout or network errors. Default 3. */
  readonly readAttempts?: number;
  /** Longest wait between read attempts, also caps `Retry-After`. Default 2 s. */
  readonly maxBackoffMs?: number;
  readonly counter: RequestCounter;
  /**
   * The process's request budget: every request attempt (a retry too) takes a token first;
   * watch streams do not. Absent: unlimited (short-lived commands, tests).
   */
  readonly limiter?: RequestLimiter | undefined;
}

export interface HttpCall {
  readonly verb: KubeVerb;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
}

/**
 * Raw JSON over HTTPS to the API server, authenticated by a kubeconfig (`KubeAccess`). Returns
 * the server's JSON untouched (no model classes), so the domain sees exactly what the server
 * stored, defaulting included. Reads are retried within a small budget; writes are sent once.
 */
export class KubeTransport {
  private readonly server: URL;
  /** Watch streams, and the requests of a kubeconfig that brings an agent of its own. */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  /** Plain requests (`tls-pool.ts`). */
  private readonly pool: TlsPool;
  private readonly timeoutMs: number;
  private readonly readAttempts: number;
  private readonly maxBackoffMs: number;
  private readonly counter: RequestCounter;
  private readonly limiter: RequestLimiter | undefined;
  /** Aborted by {@link close}: every request, retry wait and stream ends at once. */
  private readonly closing = new AbortController();

  constructor(
    private readonly kc: KubeAccess,
    opts: TransportOptions,
  ) {
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error("kubeconfig has no current cluster: set current-context");
    this.server = new URL(cluster.server);
    this.pool = new TlsPool(this.server.origin);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.readAttempts = opts.readAttempts ?? 3;
    this.maxBackoffMs = opts.maxBackoffMs ?? 2_000;
    this.counter = opts.counter;
    this.limiter = opts.limiter;
  }

  async call(c: HttpCall): Promise<unknown> {
    const attempts = c.verb === "get" || c.verb === "list" ? this.readAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      if (this.closing.signal.aborted) throw new ClientClosedError(c.verb, c.path);
      try {
        return await this.once(c);
      } catch (err) {
        if (!(err instanceof KubeApiError) || !err.transient || attempt >= attempts) throw err;
        await sleep(this.backoff(attempt, err.retryAfterMs), this.closing.signal);
      }
    }
  }

  /**
   * Ends everything at once: requests in flight and waiting for a retry or a token reject with
   * {@link ClientClosedError}, streams end, later calls are refused; no socket stays open.
   */
  close(): void {
    this.closing.abort();
    this.agent.destroy();
    this.pool.destroy();
  }

  /**
   * A long-lived GET whose body is newline-delimited JSON (a watch): `onLine` receives each
   * complete line as it arrives. Resolves when the server ends the stream; rejects with a
   * `KubeApiError` (verb `watch`) on a non-2xx answer, a network failure, or when nothing
   * arrived for `idleMs` (a half-open connection). `opened` is called once the server accepted
   * the stream. Aborting `signal` ends the stream and resolves.
   */
  async stream(
    path: string,
    handlers: { readonly onLine: (line: string) => void; readonly opened?: () => void },
    opts: { readonly idleMs: number; readonly signal: AbortSignal },
  ): Promise<void> {
    const req: RequestOptions = {
      method: "GET",
      agent: this.agent,
      headers: { accept: "application/json" },
    };
    await this.kc.applyToHTTPSOptions(req);
    // Stopped meanwhile (an abort before the listeners below exist would be missed).
    if (opts.signal.aborted || this.closing.signal.aborted) return;
    const fail = (category: "timeout" | "network", err: unknown) => {
      this.counter.record("watch", category);
      return new KubeApiError({ verb: "watch", path, category, detail: String(err), cause: err });
    };
    return new Promise<void>((resolve, reject) => {
      let idle: NodeJS.Timeout | undefined;
      let failed: Error | undefined;
      const call = request(new URL(path, this.server), req, (res) => {
        const status = res.statusCode ?? 0;
        this.counter.record("watch", String(status));
        if (status < 200 || status >= 300) {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            clearTimeout(idle);
            reject(statusError("watch", path, status, Buffer.concat(chunks).toString("utf8")));
          });
          return;
        }
        handlers.opened?.();
        let pending = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          arm();
          pending += chunk;
          let nl: number;
          while ((nl = pending.indexOf("\n")) >= 0) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (line.trim() === "") continue;
            try {
              handlers.onLine(line);
            } catch (err) {
              // The handler refused the stream (e.g. an expired resourceVersion): end it.
              clearTimeout(idle);
              failed = err instanceof Error ? err : new Error(String(err));
              res.destroy();
              return;
            }
          }
        });
        res.on("end", () => {
          clearTimeout(idle);
          resolve();
        });
        res.on("close", () => {
          clearTimeout(idle);
          if (failed !== undefined) reject(failed);
          else resolve();
        });
        res.on("error", (err) => {
          clearTimeout(idle);
          reject(failed ?? fail("network", err));
        });
      });
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          call.destroy(new DeadlineError(`watch idle for ${opts.idleMs} ms`));
        }, opts.idleMs);
      };
      const abort = () => {
        clearTimeout(idle);
        call.destroy();
        resolve();
      };
      opts.signal.addEventListener("abort", abort, { once: true });
      this.closing.signal.addEventListener("abort", abort, { once: true });
      call.on("close", () => {
        opts.signal.removeEventListener("abort", abort);
        this.closing.signal.removeEventListener("abort", abort);
      });
      call.on("error", (err) => {
        clearTimeout(idle);
        if (failed !== undefined) reject(failed);
        else if (opts.signal.aborted || this.closing.signal.aborted) resolve();
        else reject(fail(err instanceof DeadlineError ? "timeout" : "network", err));
      });
      arm();
      call.end();
    });
  }

  private backoff(attempt: number, retryAfterMs: number | undefined): number {
    const exp = Math.min(this.maxBackoffMs, 100 * 2 ** (attempt - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    return Math.min(this.maxBackoffMs, Math.max(jittered, retryAfterMs ?? 0));
  }

  private async once(c: HttpCall): Promise<unknown> {
    if (this.limiter !== undefined) {
      await settledOrAborted(this.limiter.take(), this.closing.signal, () => 0);
      if (this.closing.signal.aborted) throw new ClientClosedError(c.verb, c.path);
    }
    const res = await this.send(c).catch((err: unknown) => {
      // Whatever a request cut off by `close` failed with, it is the close.
      if (this.closing.signal.aborted) throw new ClientClosedError(c.verb, c.path);
      const timeout = err instanceof DeadlineError;
      const category = timeout ? "timeout" : "network";
      this.counter.record(c.verb, category);
      throw new KubeApiError({
        verb: c.verb,
        path: c.path,
        category,
        detail: String(err),
        cause: err,
      });
    });
    this.counter.record(c.verb, String(res.status));
    if (res.status >= 200 && res.status < 300) return parseJson(res.body);
    throw statusError(c.verb, c.path, res.status, res.body, res.retryAfterMs);
  }

  private async send(c: HttpCall): Promise<AttemptResponse> {
    const payload = c.body === undefined ? undefined : Buffer.from(JSON.stringify(c.body));
    const opts: RequestOptions = {
      method: c.method,
      agent: this.agent,
      headers: {
        accept: "application/json",
        // An explicit length: Node sends a DELETE body without one and without chunking, and
        // the API server would then ignore the delete preconditions in it.
        ...(payload !== undefined
          ? {
              "content-type": c.contentType ?? "application/json",
              "content-length": String(payload.length),
            }
          : {}),
      },
    };
    await this.kc.applyToHTTPSOptions(opts);
    if (this.closing.signal.aborted) throw new ClientClosedError(c.verb, c.path);
    const attempt = {
      verb: c.verb,
      path: c.path,
      timeoutMs: this.timeoutMs,
      closing: this.closing.signal,
    };
    // A kubeconfig that brings an agent of its own (client-node's: a proxy, an exec plugin)
    // keeps `node:https`; the transport's own TLS material goes through the undici pool.
    if (opts.agent !== this.agent) {
      return httpsAttempt(attempt, new URL(c.path, this.server), opts, payload);
    }
    return pooledAttempt(attempt, this.pool.poolFor(opts), c.method, opts, payload);
  }
}
