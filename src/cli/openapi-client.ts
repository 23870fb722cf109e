/**
 * The HTTP client generated from the API's OpenAPI document: `paths` (src/cli/generated, written
 * by `npm run generate:client` from the route schemas) typed into openapi-fetch. Every request
 * the CLI sends goes through it, so a path, its parameters and its body that the document does
 * not declare do not compile. Answers are read as text here and parsed by the caller
 * ({@link bodyOf}), which checks them against the contract's schemas at run time.
 */
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type ParamsOption,
  type RequestBodyOption,
} from "openapi-fetch";
import type { paths } from "./generated/openapi.js";
import { fieldOf } from "../domain/input/unknowns.js";

/** The generated client over the whole document. */
export type OccHttpClient = Client<paths>;

/** The methods the API serves, as the CLI names them. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** The path templates the document declares for `method` (`/namespaces/{id}`). */
export type ApiPath<M extends Method> = ClientPathsWithMethod<OccHttpClient, Lowercase<M>>;

type Operation<M extends Method, P extends ApiPath<M>> = paths[P][Lowercase<M>];

/** What a request to `path` takes beside it, as the document declares: parameters, body. */
export type ApiInit<M extends Method, P extends ApiPath<M>> = ParamsOption<Operation<M, P>> &
  RequestBodyOption<Operation<M, P>>;

/** The `init` argument: optional when the operation requires nothing. */
export type InitArgs<I> = object extends I ? [init?: I] : [init: I];

/**
 * The generated client for `server`; with `credential` (an API key or a session), every
 * request carries it as `Authorization: Bearer …`.
 */
export function occHttpClient(server: string, credential?: string): OccHttpClient {
  return createClient<paths>({
    baseUrl: server,
    ...(credential === undefined ? {} : { headers: { authorization: `Bearer ${credential}` } }),
  });
}

/** One answer, read as text: what openapi-fetch resolves with `parseAs: "text"`. */
export interface TextAnswer {
  readonly data?: string;
  readonly error?: unknown;
  readonly response: Response;
}

/** The loosely typed request behind the typed ones (the types are checked at their call). */
type SendText = (
  method: string,
  path: string,
  init: { readonly parseAs: "text"; readonly params?: unknown; readonly body?: unknown },
) => Promise<TextAnswer>;

/**
 * Sends one request through the generated client and resolves its answer as text. Typed by
 * the document: `path` is one of its templates for `method`, `init` its parameters and body.
 */
export function sendText<M extends Method, P extends ApiPath<M>>(
  http: OccHttpClient,
  method: M,
  path: P,
  ...init: InitArgs<ApiInit<M, P>>
): Promise<TextAnswer> {
  const send = http.request as unknown as SendText;
  return send(method.toLowerCase(), path, { ...init[0], parseAs: "text" });
}

/** A body that is not JSON. */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/** The `error` of an error envelope (`{ error: { code, message } }`), each part if present. */
export function errorOf(body: unknown): { code: string | undefined; message: string | undefined } {
  const error = fieldOf(body, "error");
  const code = fieldOf(error, "code");
  const message = fieldOf(error, "message");
  return {
    code: typeof code === "string" ? code : undefined,
    message: typeof message === "string" ? message : undefined,
  };
}

/**
 * The JSON body of an answer read as text: `{}` when empty, {@link NOT_JSON} when it is not
 * JSON. (On an error status openapi-fetch has already tried `JSON.parse`: what is still a
 * string was not JSON; the API never answers a bare JSON string.)
 */
export function bodyOf(answer: TextAnswer): unknown {
  if (answer.response.ok) {
    if (answer.data === undefined || answer.data === "") return {};
    try {
      const parsed: unknown = JSON.parse(answer.data);
      return parsed;
    } catch {
      return NOT_JSON;
    }
  }
  if (answer.error === undefined || answer.error === "") return {};
  return typeof answer.error === "string" ? NOT_JSON : answer.error;
}
