/**
 * The transport's plain requests on its undici pool (`tls-pool.ts`), against a real TLS server:
 * one kept-alive connection carries a run of requests with the kubeconfig's token, the
 * kubeconfig's CA is enforced, and a CA file or token rewritten on disk is used from the next
 * request on (a new pool), as with the `node:https` agent before.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadKubeConfig, RequestCounter } from "../../../src/drivers/kubernetes/client/index.js";
import { KubeTransport } from "../../../src/drivers/kubernetes/client/transport.js";
import { makeTestPki, type TestPki } from "../../harness/oidc-provider-tls.js";

let dir: string;
let pkiA: TestPki;
let pkiB: TestPki;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-transport-"));
  [pkiA, pkiB] = await Promise.all([makeTestPki(["127.0.0.1"]), makeTestPki(["127.0.0.1"])]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Served {
  readonly server: Server;
  readonly port: number;
  /** TLS connections accepted so far. */
  connections: number;
  /** The `authorization` header of each request, in order. */
  readonly auth: string[];
}

/** A TLS server with `pki`'s certificate answering every request with `{ served: name, … }`. */
async function serve(pki: TestPki, name: string, port = 0): Promise<Served> {
  const auth: string[] = [];
  const server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    auth.push(req.headers.authorization ?? "");
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ served: name, method: req.method, path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const served: Served = {
    server,
    port: (server.address() as AddressInfo).port,
    connections: 0,
    auth,
  };
  server.on("secureConnection", () => {
    served.connections += 1;
  });
  return served;
}

async function stop(s: Served): Promise<void> {
  s.server.closeAllConnections();
  await new Promise<void>((resolve) => {
    s.server.close(() => {
      resolve();
    });
  });
}

/** A transport from a kubeconfig naming the CA file and the token file in `dir`. */
async function transportFor(port: number): Promise<KubeTransport> {
  const path = join(dir, "kubeconfig.yaml");
  await writeFile(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "c",
          cluster: {
            server: `https://127.0.0.1:${String(port)}`,
            "certificate-authority": join(dir, "ca.pem"),
          },
        },
      ],
      users: [{ name: "u", user: { tokenFile: join(dir, "token") } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    }),
  );
  return new KubeTransport(loadKubeConfig(path), { counter: new RequestCounter() });
}

/** The CA file naming pkiA's CA, the token "first", a server with pkiA's certificate, a transport. */
async function startA(): Promise<{ a: Served; t: KubeTransport }> {
  await writeFile(join(dir, "ca.pem"), pkiA.ca);
  await writeFile(join(dir, "token"), "first\n");
  const a = await serve(pkiA, "A");
  return { a, t: await transportFor(a.port) };
}

const get = (t: KubeTransport, path: string) => t.call({ verb: "get", method: "GET", path });

describe("the transport's pooled requests", () => {
  it("carry a run of requests on kept-alive connections, with the kubeconfig's token", async () => {
    const { a, t } = await startA();
    try {
      for (let i = 0; i < 20; i += 1) {
        const path = `/api/v1/x?i=${String(i)}`;
        expect(await get(t, path)).toEqual({
          served: "A",
          method: "GET",
          path,
        });
      }
      expect(
        await t.call({ verb: "create", method: "POST", path: "/api/v1/y", body: { a: 1 } }),
      ).toEqual({ served: "A", method: "POST", path: "/api/v1/y" });
      // Kept alive: undici may open a second connection while the first still finishes a
      // response, not one per request.
      expect(a.connections).toBeLessThanOrEqual(2);
      expect(a.auth).toHaveLength(21);
      expect(new Set(a.auth)).toEqual(new Set(["Bearer first"]));
    } finally {
      t.close();
      await stop(a);
    }
  });

  it("enforce the CA file, and use a rewritten CA file and token from the next request on", async () => {
    const { a, t } = await startA();
    try {
      expect(await get(t, "/a")).toMatchObject({ served: "A" });
      expect(a.auth).toEqual(["Bearer first"]);
      await stop(a);
      // The server now presents a certificate of another CA, which the old CA file refuses.
      const b = await serve(pkiB, "B", a.port);
      try {
        await expect(get(t, "/b")).rejects.toMatchObject({
          category: "network",
        });
        expect(b.auth).toEqual([]);
        await writeFile(join(dir, "ca.pem"), pkiB.ca);
        await writeFile(join(dir, "token"), "second\n");
        expect(await get(t, "/b")).toMatchObject({ served: "B" });
        expect(b.auth).toEqual(["Bearer second"]);
      } finally {
        await stop(b);
      }
    } finally {
      t.close();
    }
  });
});
