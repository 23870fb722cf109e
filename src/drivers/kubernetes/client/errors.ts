/**
 * How a Kubernetes request failed, as a closed set. Callers decide on the category, never on
 * message text; the HTTP status and the API's own `reason` are kept for logs.
 */
export const KUBE_ERROR_CATEGORIES = [
  "not-found", // 404
  "conflict", // 409: resourceVersion/UID precondition, field-manager conflict, already exists
  "forbidden", // 403
  "unauthorized", // 401
  "invalid", // 400, 422
  "gone", // 410
  "throttled", // 429
  "server", // 5xx
  "timeout", // our own deadline passed
  "network", // connection refused, reset, TLS failure
  "rejected", // any other 4xx
] as const;
export type KubeErrorCategory = (typeof KUBE_ERROR_CATEGORIES)[number];

export type KubeVerb = "get" | "list" | "watch" | "create" | "patch" | "delete";

export function categoryOfStatus(status: number): KubeErrorCategory {
  switch (status) {
    case 400:
    case 422:
      return "invalid";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not-found";
    case 409:
      return "conflict";
    case 410:
      return "gone";
    case 429:
      return "throttled";
    default:
      return status >= 500 ? "server" : "rejected";
  }
}

export interface KubeApiErrorInit {
  readonly verb: KubeVerb;
  readonly path: string;
  readonly category: KubeErrorCategory;
  /** The HTTP status; absent for timeouts and network errors. */
  readonly status?: number;
  /** The API's `Status.reason` (e.g. `AlreadyExists`, `Conflict`), when it sent one. */
  readonly reason?: string;
  readonly detail: string;
  /** The server's `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

/** A failed Kubernetes request. `message` is for operators' logs, not for API responses. */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  readonly verb: KubeVerb;
  readonly path: string;
  readonly category: KubeErrorCategory;
  readonly status: number | undefined;
  readonly reason: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(init: KubeApiErrorInit) {
    const what = `${String(init.status ?? init.category)}${init.reason ? ` ${init.reason}` : ""}`;
    super(`${init.verb} ${init.path}: ${what}: ${init.detail}`, { cause: init.cause });
    this.verb = init.verb;
    this.path = init.path;
    this.category = init.category;
    this.status = init.status;
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Retrying the same read later may succeed (throttling, server errors, timeouts, network). */
  get transient(): boolean {
    return (
      this.category === "throttled" ||
      this.category === "server" ||
      this.category === "timeout" ||
      this.category === "network"
    );
  }
}

export function isKubeError(err: unknown, category?: KubeErrorCategory): err is KubeApiError {
  return err instanceof KubeApiError && (category === undefined || err.category === category);
}

/** `ignoreNotFound`: the value, or `undefined` when the object does not exist. */
export async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isKubeError(err, "not-found")) return undefined;
    throw err;
  }
}

/**
 * A request the transport did not send or gave up because it was closed (its process is
 * stopping). Deliberately not a {@link KubeApiError}: it is no answer of the API server, so a
 * pass does not record it as an outcome; it ends the pass, whose claim is then left to expire.
 */
export class ClientClosedError extends Error {
  override readonly name = "ClientClosedError";
  constructor(verb: KubeVerb | "watch", path: string) {
    super(`${verb} ${path}: the Kubernetes client was closed (the process is stopping)`);
  }
}
