/**
 * The kubeconfig reader that replaces client-node's (issue 20, P6): what each supported shape
 * puts on a request, kubectl's path and merge rules, and the hand-over to client-node for the
 * shapes it does not read itself — compared with what client-node produces for the same file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadKubeConfig } from "../../../src/drivers/kubernetes/client/kubeconfig.js";

let dir: string;
const saved = process.env.KUBECONFIG;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-kubeconfig-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  if (saved === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = saved;
});

async function kubeconfig(
  file: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  extra: { contexts?: unknown[]; current?: string } = {},
): Promise<string> {
  const path = join(dir, file);
  await writeFile(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster }],
      users: [{ name: "u", user }],
      contexts: extra.contexts ?? [{ name: "ctx", context: { cluster: "c", user: "u" } }],
      "current-context": extra.current ?? "ctx",
    }),
  );
  return path;
}

async function applied(kc: {
  applyToHTTPSOptions(o: RequestOptions): Promise<void>;
}): Promise<RequestOptions> {
  const opts: RequestOptions = { headers: { accept: "application/json" } };
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("loadKubeConfig", () => {
  it("a token and inline CA: the same CA and bearer header client-node applies", async () => {
    const file = await kubeconfig(
      "token.yaml",
      { server: "https://127.0.0.1:6443", "certificate-authority-data": b64("CA PEM") },
      { token: "t0ken" },
    );
    const ours = await applied(loadKubeConfig(file));
    const theirs = new KubeConfig();
    theirs.loadFromFile(file);
    const reference = await applied(theirs);
    expect(loadKubeConfig(file).getCurrentCluster()?.server).toBe("https://127.0.0.1:6443");
    expect(String(ours.ca)).toBe(String(reference.ca));
    expect(ours.headers).toEqual({ accept: "application/json", authorization: "Bearer t0ken" });
    expect(ours.rejectUnauthorized).toBe(reference.rejectUnauthorized);
  });

  it("files named relative to the kubeconfig's folder; the token file is read at each request", async () => {
    await writeFile(join(dir, "ca.pem"), "CA FILE");
    await writeFile(join(dir, "cert.pem"), "CERT");
    await writeFile(join(dir, "key.pem"), "KEY");
    await writeFile(join(dir, "tok"), "first\n");
    const file = await kubeconfig(
      "files.yaml",
      { server: "https://k:6443", "certificate-authority": "ca.pem", "tls-server-name": "kube" },
      { "client-certificate": "cert.pem", "client-key": "key.pem", tokenFile: "tok" },
    );
    const kc = loadKubeConfig(file);
    const first = await applied(kc);
    const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString("utf8") : v);
    expect([text(first.ca), text(first.cert), text(first.key)]).toEqual(["CA FILE", "CERT", "KEY"]);
    expect(first.servername).toBe("kube");
    expect(first.headers).toMatchObject({ authorization: "Bearer first" });
    await writeFile(join(dir, "tok"), "rotated\n");
    expect((await applied(kc)).headers).toMatchObject({ authorization: "Bearer rotated" });
  });

  it("basic auth and insecure-skip-tls-verify", async () => {
    const file = await kubeconfig(
      "basic.yaml",
      { server: "https://k:6443", "insecure-skip-tls-verify": true },
      { username: "admin", password: "pw" },
    );
    const opts = await applied(loadKubeConfig(file));
    expect(opts.rejectUnauthorized).toBe(false);
    expect(opts.headers).toMatchObject({ authorization: `Basic ${b64("admin:pw")}` });
  });

  it("uses the current context, and $KUBECONFIG merges files with the first name winning", async () => {
    const a = await kubeconfig(
      "a.yaml",
      { server: "https://a:6443" },
      { token: "a" },
      {
        contexts: [
          { name: "one", context: { cluster: "c", user: "u" } },
          { name: "two", context: { cluster: "other", user: "u" } },
        ],
        current: "one",
      },
    );
    const b = await kubeconfig("b.yaml", { server: "https://b:6443" }, { token: "b" });
    process.env.KUBECONFIG = [join(dir, "missing.yaml"), a, b].join(delimiter);
    const kc = loadKubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe("https://a:6443");
    expect((await applied(kc)).headers).toMatchObject({ authorization: "Bearer a" });
  });

  it("an exec credential plugin is handed to client-node (which runs the plugin)", async () => {
    const file = await kubeconfig(
      "exec.yaml",
      { server: "https://exec:6443" },
      {
        exec: {
          apiVersion: "client.authentication.k8s.io/v1",
          command: process.execPath,
          args: [
            "-e",
            'console.log(JSON.stringify({apiVersion:"client.authentication.k8s.io/v1",kind:"ExecCredential",status:{token:"from-plugin"}}))',
          ],
          interactiveMode: "Never",
        },
      },
    );
    const kc = loadKubeConfig(file);
    expect(kc.getCurrentCluster()?.server).toBe("https://exec:6443");
    const opts = await applied(kc);
    expect(JSON.stringify(opts.headers)).toContain("from-plugin");
  });

  it("names what is missing when there is no kubeconfig at all", () => {
    process.env.KUBECONFIG = join(dir, "nope.yaml");
    expect(() => loadKubeConfig()).toThrow(/KUBECONFIG names no existing file/);
  });
});
