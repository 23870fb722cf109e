/**
 * One HTTP request to a running OCC API, for every suite that talks to one over the wire:
 * the status, the parsed body (each test types it by the shape it asserts) and the session
 * cookie the answer set, if any.
 */
import { eventually } from "./kube.js";

/** What a request carries besides its method and path. */
export interface ApiRequest {
  /** An API key or a session token, sent as `Authorization: Bearer`. */
  readonly key?: string;
  /** A `name=value` cookie, e.g. the session cookie an earlier answer set. */
  readonly cookie?: string;
  readonly origin?: string;
  /** Sent as JSON when present. */
  readonly body?: unknown;
}

export interface ApiAnswer {
  readonly status: number;
  /** The parsed JSON body; `{}` for an empty one. */
  readonly body: unknown;
  /** The first cookie the answer set, as `name=value`. */
  readonly cookie: string | undefined;
}

/** Sends one request to `base` (the API's URL) and reads the whole answer. */
export async function requestApi(
  base: string,
  method: string,
  path: string,
  req: ApiRequest = {},
): Promise<ApiAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(req.key === undefined ? {} : { authorization: `Bearer ${req.key}` }),
      ...(req.cookie === undefined ? {} : { cookie: req.cookie }),
      ...(req.origin === undefined ? {} : { origin: req.origin }),
      ...(req.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
  });
  const text = await res.text();
  const body: unknown = text === "" ? {} : JSON.parse(text);
  return { status: res.status, body, cookie: res.headers.getSetCookie()[0]?.split(";")[0] };
}

/** One request as the holder of `plane.apiKey` (usually the bootstrap administrator). */
export async function callApi(
  plane: { readonly apiUrl: string; readonly apiKey: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const answer = await requestApi(plane.apiUrl, method, path, { key: plane.apiKey, body });
  return { status: answer.status, body: answer.body };
}

/**
 * Polls `GET /namespaces/{id}` until `ok` holds for its view (`null` once it answers 404), and
 * returns the view that satisfied it; on timeout the error names the last answer seen.
 */
export async function untilNamespace<View>(
  plane: { readonly apiUrl: string; readonly apiKey: string },
  id: string,
  what: string,
  ok: (view: View | null) => boolean,
  timeoutMs?: number,
): Promise<View | null> {
  let last: { status: number; body: unknown } | undefined;
  let view: View | null = null;
  await eventually(
    () => `${id} ${what} (last: ${JSON.stringify(last)})`,
    async () => {
      last = await callApi(plane, "GET", `/namespaces/${id}`);
      view = last.status === 404 ? null : (last.body as { data: View }).data;
      return ok(view);
    },
    timeoutMs,
  );
  return view;
}
