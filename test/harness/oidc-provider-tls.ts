/**
 * TLS for the sign-in tests where https is required (the chart refuses an `http://` issuer or
 * base URL): a throwaway CA and one server certificate made with `openssl` at test time, a
 * `fetch` that trusts that CA (for {@link Browser}), and a TLS front (an Ingress's part: https in, plain http to a
 * Service behind it).
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import { createServer, request as httpsRequest, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { promisify } from "node:util";

export interface TestPki {
  /** The CA's certificate (PEM): what a client is told to trust. */
  readonly ca: string;
  /** The server certificate (valid for `ips`) and its key, PEM. */
  readonly cert: string;
  readonly key: string;
}

/** A CA valid for one day and a server certificate it signs for the IP addresses `ips`. */
export async function makeTestPki(ips: readonly string[]): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), "occ-pki-"));
  const openssl = (args: readonly string[]) => promisify(execFile)("openssl", [...args]);
  const f = (name: string) => join(dir, name);
  try {
    await openssl([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", f("ca.key"), "-out", f("ca.crt"), "-days", "1", "-subj", "/CN=OCC test CA",
      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
    ]); // prettier-ignore
    await openssl([
      "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", f("server.key"), "-out", f("server.csr"), "-subj", "/CN=OCC test server",
    ]); // prettier-ignore
    await writeFile(
      f("ext.cnf"),
      `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(",")}\nextendedKeyUsage=serverAuth\n`,
    );
    await openssl([
      "x509", "-req", "-in", f("server.csr"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"),
      "-CAcreateserial", "-days", "1", "-extfile", f("ext.cnf"), "-out", f("server.crt"),
    ]); // prettier-ignore
    const [ca, cert, key] = await Promise.all(
      ["ca.crt", "server.crt", "server.key"].map((n) => readFile(f(n), "utf8")),
    );
    return { ca: ca ?? "", cert: cert ?? "", key: key ?? "" };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What {@link Browser} sends through: `fetch`'s shape, enough of it for a browser. */
export type Fetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<Response>;

/**
 * A `fetch` that trusts `ca` besides the system's CAs (node's own `fetch` takes no CA; a
 * process-wide trust would need Node ≥ 22.19). No redirect followed, as `redirect: "manual"`.
 */
export function fetchTrusting(ca: string): Fetch {
  const cas = [...rootCertificates, ca];
  return (url, init) =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const send = u.protocol === "https:" ? httpsRequest : request;
      const req = send(u, { method: init.method, headers: init.headers, ca: cas }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const headers = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
            headers.append(res.rawHeaders[i] ?? "", res.rawHeaders[i + 1] ?? "");
          const status = res.statusCode ?? 502;
          const empty = [204, 205, 304].includes(status);
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.on("error", reject);
      req.end(init.body);
    });
}

/**
 * https on `host` (a free port) in front of a plain-http target (e.g. a Service's ClusterIP
 * URL), as an Ingress terminating TLS: each request passed on unchanged. Its URL is known
 * before the target is (`forwardTo`; until then it answers 502).
 */
export async function startTlsFront(
  pki: TestPki,
  host: string,
): Promise<{ url: string; forwardTo(target: string): void; stop(): Promise<void> }> {
  let to: URL | undefined;
  const server: Server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    if (to === undefined) {
      res.writeHead(502).end();
      return;
    }
    const upstream = request(
      {
        hostname: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `https://${host}:${(server.address() as AddressInfo).port}`,
    forwardTo(target) {
      to = new URL(target);
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
