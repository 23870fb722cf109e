/**
 * What the R6 fuzz suites share (quality.md §3): the run count, one API per file listening on
 * a port (PGlite behind it), and the property every response must satisfy.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { errorOf, startApi, type ApiFixture, type Reply } from "../../harness/api-app.js";

export const RUNS = Number(process.env.OCC_FUZZ_RUNS ?? 150);
const STATUSES = new Set<number>(Object.values(ERROR_STATUS));

/** The file's API and its URL, started before its tests and closed after them. */
export class ListeningApi {
  #fx: ApiFixture | undefined;
  url = "";
  get fx(): ApiFixture {
    if (this.#fx === undefined) throw new Error("the fuzzed API starts in beforeAll");
    return this.#fx;
  }
  async start(): Promise<void> {
    this.#fx = await startApi();
    this.url = await this.#fx.app.listen({ host: "127.0.0.1", port: 0 });
  }
}

export function useListeningApi(): ListeningApi {
  const live = new ListeningApi();
  beforeAll(() => live.start());
  afterAll(() => live.fx.close());
  return live;
}

/** The property every response must satisfy. */
export function wellFormed(r: Reply, method: string): void {
  expect(r.status).not.toBe(500);
  expect(r.headers["x-request-id"]).toMatch(/^req_/);
  if (method === "HEAD") {
    expect(r.text).toBe("");
    expect(r.status === 200 || STATUSES.has(r.status)).toBe(true);
  } else if (r.status >= 400) {
    expect(STATUSES.has(r.status)).toBe(true);
    const body = errorOf(r);
    expect(ERROR_STATUS[body.error.code]).toBe(r.status);
    expect(body.error.message.length).toBeLessThanOrEqual(256);
    expect(body.meta.requestId).toBe(r.headers["x-request-id"]);
  } else if (r.text !== "") {
    expect(r.body).toMatchObject({
      data: expect.anything() as unknown,
      meta: { requestId: r.headers["x-request-id"] },
    });
  }
}
