/**
 * The CLI's client for the OCC HTTP API, over the client generated from the API's OpenAPI
 * document (openapi-client.ts): every request names a path template of the document with its
 * parameters and body, checked by the typecheck. The server and key come from flags or the
 * environment `occ dev up` writes to `dev.env` (`OCC_API_URL`, `OCC_API_KEY`); without a key,
 * the session `occ login` stored for the server is used; a missing one is named with the fix.
 * Every error envelope becomes an {@link ApiRequestError} carrying the API's stable code, so a
 * caller can branch on the code, never on text. Every answer is parsed with the contract's
 * schemas (`src/contract`), the same ones the server declares; an answer that does not match is
 * an error, never a cast.
 */
import { readFile } from "node:fs/promises";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Command } from "commander";
import { registerFormats } from "../contract/formats.js";
import {
  bodyOf,
  NOT_JSON,
  occHttpClient,
  sendText,
  type ApiInit,
  type ApiPath,
  type InitArgs,
  type Method,
} from "./openapi-client.js";
import { currentServer, storedSession } from "./session-store.js";
import { messageOf } from "../domain/input/unknowns.js";

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
  /**
   * Sends one request through the generated client (`path` a template of the document, `init`
   * its parameters and body) and returns the envelope's `data`, unparsed, and its cursor.
   */
  request<M extends Method, P extends ApiPath<M>>(
    method: M,
    path: P,
    ...init: InitArgs<ApiInit<M, P>>
  ): Promise<ApiResponse<unknown>>;
}

export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly nextCursor: string | null;
  /** The request as messages name it: method, path and query (`GET /namespaces?limit=100`). */
  readonly sent: string;
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
      throw new Error(`cannot read --api-key-file ${opts.apiKeyFile}: ${messageOf(err)}`);
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
  const http = occHttpClient(server, await credentialOf(opts, server, env));
  return {
    server,
    async request(method, path, ...init) {
      let answer;
      try {
        answer = await sendText(http, method, path, ...init);
      } catch (err) {
        throw new Error(
          `cannot reach the OCC API at ${server}: ${messageOf(err)}; check --server / OCC_API_URL`,
        );
      }
      const res = answer.response;
      const what = `${method} ${requestPath(res, server)}`;
      const json = bodyOf(answer);
      if (json === NOT_JSON)
        throw new Error(`${what}: HTTP ${res.status} with a body that is not JSON`);
      if (!res.ok) throw apiErrorOf(res, json);
      const envelope = parseAs(SuccessEnvelopeSchema, json, what);
      return {
        status: res.status,
        data: envelope.data,
        nextCursor: envelope.meta?.nextCursor ?? null,
        sent: what,
      };
    },
  };
}

/** The path and query a request was sent to, as error messages name it (`GET /namespaces?limit=100`). */
function requestPath(res: Response, server: string): string {
  if (res.url === "" || res.url.startsWith(server)) return res.url.slice(server.length);
  const url = new URL(res.url);
  return `${url.pathname}${url.search}`;
}

/** The refusal an error envelope (or a status without one) stands for. */
function apiErrorOf(res: Response, json: unknown): ApiRequestError {
  const error = Value.Check(ErrorBodySchema, json) ? json.error : undefined;
  return new ApiRequestError(
    res.status,
    error?.code ?? `HTTP_${res.status}`,
    error?.message ?? res.statusText,
  );
}

/** Sends one request and parses the answer's `data` with `schema`. */
export async function requestAs<S extends TSchema, M extends Method, P extends ApiPath<M>>(
  client: ApiClient,
  schema: S,
  method: M,
  path: P,
  ...init: InitArgs<ApiInit<M, P>>
): Promise<Static<S>> {
  const res = await client.request(method, path, ...init);
  return parseAs(schema, res.data, res.sent);
}

/** GET `path`, parsed with `schema`; `null` when the API answers 404 (absent, deleted, or not visible). */
export async function getOrNull<S extends TSchema, P extends ApiPath<"GET">>(
  client: ApiClient,
  schema: S,
  path: P,
  ...init: InitArgs<ApiInit<"GET", P>>
): Promise<Static<S> | null> {
  try {
    return await requestAs(client, schema, "GET", path, ...init);
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return null;
    throw err;
  }
}

/** The collections the API pages (`limit`, `cursor`). */
export type PagedPath = {
  [P in ApiPath<"GET">]: ApiInit<"GET", P> extends {
    params?: { query?: { cursor?: string; limit?: number } };
  }
    ? P
    : never;
}[ApiPath<"GET">];

/** Every item of a paged collection at `path`, each parsed with `item`, following `nextCursor`. */
export async function listAll<S extends TSchema, P extends PagedPath>(
  client: ApiClient,
  item: S,
  path: P,
  ...init: InitArgs<ApiInit<"GET", P>>
): Promise<Static<S>[]> {
  const items: Static<S>[] = [];
  const pageSchema = Type.Array(item);
  let cursor: string | null = null;
  do {
    const query = { limit: 100, ...(cursor === null ? {} : { cursor }) };
    const params = { ...init[0]?.params, query };
    // P is a PagedPath: its query takes `limit` and `cursor` (what TypeScript cannot follow here).
    const paged = [{ ...init[0], params }] as unknown as InitArgs<ApiInit<"GET", P>>;
    const page: ApiResponse<unknown> = await client.request("GET", path, ...paged);
    items.push(...parseAs(pageSchema, page.data, page.sent));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}
