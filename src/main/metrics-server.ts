import { createServer } from "node:http";
import type { Registry } from "prom-client";
import { listeningPort } from "../domain/input/unknowns.js";

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /**
   * What `/readyz` checks (the worker: its database answers); resolves when ready. Without
   * it `/readyz` answers as `/healthz` does.
   */
  readonly ready?: () => Promise<unknown>;
  /** How long `/readyz` waits for `ready` (default 2 s). */
  readonly readyTimeoutMs?: number;
}

/** Resolves whether `check` resolved within `ms`. */
async function within(check: () => Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, ms);
  });
  try {
    return await Promise.race([check().then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The worker's own `/metrics`, `/healthz` (the process answers) and `/readyz` (its database
 * answers: unready while PostgreSQL is down or restarting, ready again once it is back)
 * endpoint: the worker serves no API, but its pass durations and Kubernetes request counts
 * live in its process.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  opts: MetricsServerOptions = {},
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/readyz") {
      const ready = opts.ready;
      void (
        ready === undefined ? Promise.resolve(true) : within(ready, opts.readyTimeoutMs ?? 2_000)
      ).then((ok) => {
        res
          .writeHead(ok ? 200 : 503, { "content-type": "text/plain" })
          .end(ok ? "ready\n" : "database unavailable\n");
      });
      return;
    }
    if (req.method === "GET" && req.url === "/metrics") {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": registry.contentType }).end(text);
        },
        () => {
          res.writeHead(503, { "content-type": "text/plain" }).end("metrics unavailable\n");
        },
      );
      return;
    }
    if (req.method === "GET" && req.url === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://${host}:${listeningPort(server.address())}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
