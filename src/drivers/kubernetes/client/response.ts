import { KubeApiError, categoryOfStatus, type KubeVerb } from "./errors.js";

/** The `KubeApiError` for a non-2xx answer, with the API's `Status.reason` and message. */
export function statusError(
  verb: KubeVerb,
  path: string,
  status: number,
  body: string,
  retryAfterMs?: number,
): KubeApiError {
  const parsed = parseJson(body);
  const statusReason =
    isRecord(parsed) && typeof parsed.reason === "string" ? parsed.reason : undefined;
  const message = isRecord(parsed) && typeof parsed.message === "string" ? parsed.message : body;
  return new KubeApiError({
    verb,
    path,
    category: categoryOfStatus(status),
    status,
    ...(statusReason !== undefined ? { reason: statusReason } : {}),
    detail: message.slice(0, 1_000),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

export function parseRetryAfter(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const seconds = Number(v);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
}

export function parseJson(body: string): unknown {
  if (body === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed;
  } catch {
    return body;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}
