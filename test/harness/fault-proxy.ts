import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";
import type { ClusterIdentity } from "../../src/devcluster/identities.js";

/** What the proxy does with one request. */
export type Fault =
  /** Forward to the API server, after `before` (e.g. a concurrent change) has completed. */
  | { readonly action: "pass"; readonly before?: () => Promise<void> }
  | { readonly action: "status"; readonly status: number; readonly retryAfterSeconds?: number }
  | { readonly action: "hang" }
  | { readonly action: "drop" };

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

export interface FaultProxy {
  readonly url: string;
  /** Every request the proxy received, in order, faulted or not. */
  readonly seen: SeenRequest[];
  /** A kubeconfig for `identity` that talks to the API server through this proxy. */
  kubeConfig(identity: ClusterIdentity): KubeConfig;
  /** Resets every open connection (watch streams included), as an API server going away. */
  resetConnections(): void;
  close(): Promise<void>;
}

/**
 * An HTTPS proxy on loopback in front of the real API server that injects faults (status
 * codes with Retry-After, hung requests, dropped connections) chosen per request by `plan`.
 * It serves the API server's own certificate, so clients verify it with the cluster CA.
 */
export async function startFaultProxy(
  plan: (req: SeenRequest, index: number) => Fault,
): Promise<FaultProxy> {
  const env = inject("env");
  const upstream = new URL(env.server);
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const entry = { method: req.method ?? "", path: req.url ?? "", body: body.toString() };
    const fault = plan(entry, seen.length);
    seen.push(entry);
    switch (fault.action) {
      case "hang":
        return;
      case "drop":
        req.socket.destroy();
        return;
      case "status": {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (fault.retryAfterSeconds !== undefined) {
          headers["retry-after"] = String(fault.retryAfterSeconds);
        }
        res.writeHead(fault.status, headers);
        res.end(
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            message: "injected by the test fault proxy",
            reason: "Injected",
            code: fault.status,
          }),
        );
        return;
      }
      case "pass":
        if (fault.before === undefined) forward(req, res, body);
        else
          void fault.before().then(
            () => {
              forward(req, res, body);
            },
            () => res.destroy(),
          );
    }
  };
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        ca: env.caPem,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    up.end(body);
  };
  const server: Server = createServer(
    { cert: readFileSync(env.servingCertFile), key: readFileSync(env.servingKeyFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        handle(req, res, Buffer.concat(chunks));
      });
    },
  );
  server.on("secureConnection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    kubeConfig(identity) {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [
          { name: "proxy", server: url, caData: Buffer.from(env.caPem).toString("base64") },
        ],
        users: [{ name: identity, token: env.tokens[identity] }],
        contexts: [{ name: "proxy", cluster: "proxy", user: identity }],
        currentContext: "proxy",
      });
      return kc;
    },
    resetConnections() {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          r();
        });
      }),
  };
}
