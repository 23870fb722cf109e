import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The worker's own `/metrics` (and `/healthz`) endpoint: the worker serves no API, but its
 * pass durations and Kubernetes request counts live in its process.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
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
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
