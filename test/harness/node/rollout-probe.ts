/**
 * What an API client sees while a release rolls: a loop of requests through the API Service,
 * each answer or connection error recorded with its time, summed up as the statuses seen and the
 * longest stretch in which no request got an answer.
 */

/** One request's outcome: the HTTP status, or the code of the error that prevented an answer. */
export interface ProbeSample {
  readonly at: number;
  readonly status?: number;
  /** The response's error code (`DEPENDENCY_UNAVAILABLE`, …) for a non-2xx answer. */
  readonly code?: string;
  /** `ECONNREFUSED`, `EHOSTUNREACH`, `TIMEOUT`, … when there was no answer. */
  readonly error?: string;
}

export interface ProbeSummary {
  readonly requests: number;
  /** `"200"`, `"503 DEPENDENCY_UNAVAILABLE"`, `"ECONNREFUSED"` → how many. */
  readonly outcomes: Readonly<Record<string, number>>;
  /** The longest time from a request that got no answer to the next one that did. */
  readonly longestUnansweredMs: number;
  /** Answers that are neither 2xx nor a 503 (a client must not retry them blindly). */
  readonly unexpected: readonly ProbeSample[];
}

function errorCode(err: unknown): string {
  if (err instanceof Error && err.name === "TimeoutError") return "TIMEOUT";
  const cause = err instanceof Error ? err.cause : undefined;
  if (typeof cause === "object" && cause !== null && "code" in cause) return String(cause.code);
  return err instanceof Error ? err.name : "ERROR";
}

/** One GET of `url` with the API key, never throwing: its sample. */
export async function sample(url: string, key: string): Promise<ProbeSample> {
  const at = Date.now();
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(3_000),
    });
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
    const code = res.ok ? undefined : body.error?.code;
    return code === undefined ? { at, status: res.status } : { at, status: res.status, code };
  } catch (err) {
    return { at, error: errorCode(err) };
  }
}

/** Polls `url` every `everyMs` until stopped; `stop()` returns every sample. */
export function startProbe(url: string, key: string, everyMs = 200) {
  const samples: ProbeSample[] = [];
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      samples.push(await sample(url, key));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    async stop(): Promise<ProbeSample[]> {
      state.running = false;
      await loop;
      return samples;
    },
  };
}

export function summarize(samples: readonly ProbeSample[]): ProbeSummary {
  const outcomes: Record<string, number> = {};
  let longest = 0;
  let since: number | undefined;
  for (const s of samples) {
    const key = s.error ?? `${s.status ?? 0}${s.code === undefined ? "" : ` ${s.code}`}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    if (s.error !== undefined) {
      since ??= s.at;
    } else if (since !== undefined) {
      longest = Math.max(longest, s.at - since);
      since = undefined;
    }
  }
  const last = samples.at(-1);
  if (since !== undefined && last !== undefined) longest = Math.max(longest, last.at - since);
  return {
    requests: samples.length,
    outcomes,
    longestUnansweredMs: longest,
    unexpected: samples.filter(
      (s) => s.status !== undefined && !(s.status >= 200 && s.status < 300) && s.status !== 503,
    ),
  };
}
