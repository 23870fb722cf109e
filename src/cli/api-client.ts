/**
 * The CLI's client for the OCC HTTP API. The server and key come from flags or the
 * environment `occ dev up` writes to `dev.env` (`OCC_API_URL`, `OCC_API_KEY`); without a key,
 * the session `occ login` stored for the server is used; a missing one is named with the fix. Every error envelope becomes an {@link ApiRequestError}
 * carrying the API's stable code, so a caller can branch on the code, never on text. Every
 * answer is parsed with the contract's schemas (`src/contract`), the same ones the server
 * declares; an answer that does not match is an error, never a cast.
 */
import { readFile } from "node:fs/promises";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Command } from "commander";
import { registerFormats } from "../contract/formats.js";
import { currentServer, storedSession } from "./session-store.js";

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
  /** Sends one request and returns the envelope's `data`, unparsed, and `meta`. */
  request(method: string, path: string, body?: unknown): Promise<ApiResponse<unknown>>;
}

export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly nextCursor: string | null;
}

/** What the client reads of a success envelope: `data` (parsed later) and the paging cursor. */
const SuccessEnvelopeSchema = Type.Object({
  data: Type.Optional(Type.Unknown()),
  meta: Type.Optional(
    Type.Object({ nextCursor: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
  ),
});

/**
 * What the client reads of an error envelope: the code and message. Looser than the server's
 * `ErrorEnvelopeSchema` on purpose: a code this CLI does not know yet is still shown as sent.
 */
const ErrorBodySchema = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

/** `value` checked against `schema`; throws naming the request when it does not match. */
export function parseAs<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  registerFormats();
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  const where =
    first === undefined ? "" : ` at ${first.path === "" ? "/" : first.path}: ${first.message}`;
  throw new Error(`${what}: the API's answer does not match its contract${where}`);
}

/**
 * The credential: an explicit `--api-key-file`, else `OCC_API_KEY`, else the session `occ login`
 * stored for `server`.
 */
async function credentialOf(
  opts: ApiClientOptions,
  server: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (opts.apiKeyFile !== undefined) {
    try {
      return (await readFile(opts.apiKeyFile, "utf8")).trim();
    } catch (err) {
      throw new Error(`cannot read --api-key-file ${opts.apiKeyFile}: ${(err as Error).message}`);
    }
  }
  const key = env.OCC_API_KEY;
  if (key !== undefined && key !== "") return key;
  const session = await storedSession(server, env);
  if (session !== undefined) return session.session;
  throw new Error(
    `not signed in to ${server}: run occ login, or set OCC_API_KEY or pass --api-key-file (with \`occ dev up\`, source .occ/dev/dev.env)`,
  );
}

/** Builds a client from flags and the environment; names whatever is missing. */
export async function apiClientFrom(
  opts: ApiClientOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ApiClient> {
  const server = (opts.server ?? env.OCC_API_URL ?? (await currentServer(env)) ?? "").replace(
    /\/+$/,
    "",
  );
  if (server === "") {
    throw new Error(
      "no API server: set OCC_API_URL, pass --server, or occ login (with `occ dev up`, source .occ/dev/dev.env)",
    );
  }
  const key = await credentialOf(opts, server, env);
  return {
    server,
    async request(method: string, path: string, body?: unknown): Promise<ApiResponse<unknown>> {
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
      let json: unknown = {};
      if (text !== "") {
        try {
          json = JSON.parse(text);
        } catch {
          throw new Error(`${method} ${path}: HTTP ${res.status} with a body that is not JSON`);
        }
      }
      if (!res.ok) {
        const error = Value.Check(ErrorBodySchema, json) ? json.error : undefined;
        throw new ApiRequestError(
          res.status,
          error?.code ?? `HTTP_${res.status}`,
          error?.message ?? res.statusText,
        );
      }
      const envelope = parseAs(SuccessEnvelopeSchema, json, `${method} ${path}`);
      return {
        status: res.status,
        data: envelope.data,
        nextCursor: envelope.meta?.nextCursor ?? null,
      };
    },
  };
}

/** Sends one request and parses the answer's `data` with `schema`. */
export async function requestAs<S extends TSchema>(
  client: ApiClient,
  schema: S,
  method: string,
  path: string,
  body?: unknown,
): Promise<Static<S>> {
  const res = await client.request(method, path, body);
  return parseAs(schema, res.data, `${method} ${path}`);
}

/** GET `path`, parsed with `schema`; `null` when the API answers 404 (absent, deleted, or not visible). */
export async function getOrNull<S extends TSchema>(
  client: ApiClient,
  schema: S,
  path: string,
): Promise<Static<S> | null> {
  try {
    return await requestAs(client, schema, "GET", path);
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return null;
    throw err;
  }
}

/** Every item of a paged collection at `path`, each parsed with `item`, following `nextCursor`. */
export async function listAll<S extends TSchema>(
  client: ApiClient,
  item: S,
  path: string,
): Promise<Static<S>[]> {
  const items: Static<S>[] = [];
  const pageSchema = Type.Array(item);
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const pagePath = `${path}?limit=100${query}`;
    const page = await client.request("GET", pagePath);
    items.push(...parseAs(pageSchema, page.data, `GET ${pagePath}`));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}
