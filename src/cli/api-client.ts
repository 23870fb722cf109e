/**
 * The CLI's client for the OCC HTTP API. The server and key come from flags or the
 * environment `occ dev up` writes to `dev.env` (`OCC_API_URL`, `OCC_API_KEY`); a missing one
 * is named together with the fix. Every error envelope becomes an {@link ApiRequestError}
 * carrying the API's stable code, so a caller can branch on the code, never on text.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";

export interface ApiClientOptions {
  server?: string;
  apiKeyFile?: string;
}

/** `--server` and `--api-key-file`, shared by the client commands. */
export function withApiClientOptions(cmd: Command): Command {
  return cmd
    .option("--server <url>", "OCC API base URL (default: $OCC_API_URL)")
    .option("--api-key-file <file>", "file holding the API key (default: $OCC_API_KEY)");
}

/** A refusal or failure answered by the API, with its stable code. */
export class ApiRequestError extends Error {
  override readonly name = "ApiRequestError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface ApiClient {
  readonly server: string;
  /** Sends one request and returns the envelope's `data` and `meta`. */
  request<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
}

export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly nextCursor: string | null;
}

interface Envelope {
  data?: unknown;
  meta?: { nextCursor?: string | null };
  error?: { code?: string; message?: string };
}

async function apiKeyOf(opts: ApiClientOptions, env: NodeJS.ProcessEnv): Promise<string> {
  if (opts.apiKeyFile !== undefined) {
    try {
      return (await readFile(opts.apiKeyFile, "utf8")).trim();
    } catch (err) {
      throw new Error(`cannot read --api-key-file ${opts.apiKeyFile}: ${(err as Error).message}`);
    }
  }
  const key = env.OCC_API_KEY;
  if (key === undefined || key === "") {
    throw new Error(
      "no API key: set OCC_API_KEY or pass --api-key-file (with `occ dev up`, source .occ/dev/dev.env)",
    );
  }
  return key;
}

/** Builds a client from flags and the environment; names whatever is missing. */
export async function apiClientFrom(
  opts: ApiClientOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ApiClient> {
  const server = (opts.server ?? env.OCC_API_URL ?? "").replace(/\/+$/, "");
  if (server === "") {
    throw new Error(
      "no API server: set OCC_API_URL or pass --server (with `occ dev up`, source .occ/dev/dev.env)",
    );
  }
  const key = await apiKeyOf(opts, env);
  return {
    server,
    async request<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
      let res: Response;
      try {
        res = await fetch(`${server}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (err) {
        throw new Error(
          `cannot reach the OCC API at ${server}: ${(err as Error).message}; check --server / OCC_API_URL`,
        );
      }
      const text = await res.text();
      let envelope: Envelope = {};
      if (text !== "") {
        try {
          envelope = JSON.parse(text) as Envelope;
        } catch {
          throw new Error(`${method} ${path}: HTTP ${res.status} with a body that is not JSON`);
        }
      }
      if (!res.ok) {
        throw new ApiRequestError(
          res.status,
          envelope.error?.code ?? `HTTP_${res.status}`,
          envelope.error?.message ?? res.statusText,
        );
      }
      return {
        status: res.status,
        data: envelope.data as T,
        nextCursor: envelope.meta?.nextCursor ?? null,
      };
    },
  };
}

/** GET `path`; `null` when the API answers 404 (absent, deleted, or not visible). */
export async function getOrNull<T>(client: ApiClient, path: string): Promise<T | null> {
  try {
    return (await client.request<T>("GET", path)).data;
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return null;
    throw err;
  }
}

/** Every item of a paged collection at `path`, following `nextCursor`. */
export async function listAll<T>(client: ApiClient, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await client.request<T[]>("GET", `${path}?limit=100${query}`);
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}
