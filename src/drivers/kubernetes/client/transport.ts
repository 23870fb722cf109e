import { Agent, request, type RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { KubeApiError, categoryOfStatus, type KubeVerb } from "./errors.js";
import type { RequestCounter } from "./request-counter.js";

export interface TransportOptions {
  /** Deadline of each request attempt. Default 10 s. */
  readonly timeoutMs?: number;
  /** Total attempts for a read (get/list) on 429, 5xx, timeout or network errors. Default 3. */
  readonly readAttempts?: number;
  /** Longest wait between read attempts, also caps `Retry-After`. Default 2 s. */
  readonly maxBackoffMs?: number;
  readonly counter: RequestCounter;
}

export interface HttpCall {
  readonly verb: KubeVerb;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
}

interface Response {
  readonly status: number;
  readonly body: string;
  readonly retryAfterMs: number | undefined;
}

/**
 * Raw JSON over HTTPS to the API server, authenticated by a client-node KubeConfig. Returns
 * the server's JSON untouched (no model classes), so the domain sees exactly what the server
 * stored, defaulting included. Reads are retried within a small budget; writes are sent once.
 */
export class KubeTransport {
  private readonly server: URL;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly timeoutMs: number;
  private readonly readAttempts: number;
  private readonly maxBackoffMs: number;
  private readonly counter: RequestCounter;

  constructor(
    private readonly kc: KubeConfig,
    opts: TransportOptions,
  ) {
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error("kubeconfig has no current cluster: set current-context");
    this.server = new URL(cluster.server);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.readAttempts = opts.readAttempts ?? 3;
    this.maxBackoffMs = opts.maxBackoffMs ?? 2_000;
    this.counter = opts.counter;
  }

  async call(c: HttpCall): Promise<unknown> {
    const attempts = c.verb === "get" || c.verb === "list" ? this.readAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(c);
      } catch (err) {
        if (!(err instanceof KubeApiError) || !err.transient || attempt >= attempts) throw err;
        await sleep(this.backoff(attempt, err.retryAfterMs));
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private backoff(attempt: number, retryAfterMs: number | undefined): number {
    const exp = Math.min(this.maxBackoffMs, 100 * 2 ** (attempt - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    return Math.min(this.maxBackoffMs, Math.max(jittered, retryAfterMs ?? 0));
  }

  private async once(c: HttpCall): Promise<unknown> {
    const res = await this.send(c).catch((err: unknown) => {
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
    const parsed = parseJson(res.body);
    if (res.status >= 200 && res.status < 300) return parsed;
    const statusReason =
      isRecord(parsed) && typeof parsed.reason === "string" ? parsed.reason : undefined;
    const message =
      isRecord(parsed) && typeof parsed.message === "string" ? parsed.message : res.body;
    throw new KubeApiError({
      verb: c.verb,
      path: c.path,
      category: categoryOfStatus(res.status),
      status: res.status,
      ...(statusReason !== undefined ? { reason: statusReason } : {}),
      detail: message.slice(0, 1_000),
      ...(res.retryAfterMs !== undefined ? { retryAfterMs: res.retryAfterMs } : {}),
    });
  }

  private async send(c: HttpCall): Promise<Response> {
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
    const url = new URL(c.path, this.server);
    return new Promise<Response>((resolve, reject) => {
      const req = request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
          });
        });
      });
      const timer = setTimeout(() => {
        req.destroy(new DeadlineError(`no response within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(payload);
    });
  }
}

class DeadlineError extends Error {
  override readonly name = "DeadlineError";
}

function parseRetryAfter(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const seconds = Number(v);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
}

function parseJson(body: string): unknown {
  if (body === "") return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
