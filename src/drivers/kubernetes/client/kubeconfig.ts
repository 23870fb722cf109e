/**
 * Reading a kubeconfig without loading `@kubernetes/client-node`. Importing that library pulls
 * in its whole generated API (every model class and serializer): about 70 MB of resident memory
 * in every `occ` process, while OCC uses nothing of it but the credentials (issue 20, P6). The
 * common shapes are read here — a bearer token or token file, client certificate and key,
 * basic auth, the cluster's CA, `insecure-skip-tls-verify`, `tls-server-name`, and the
 * in-cluster service account. Anything else (an `exec` credential plugin, an `auth-provider`,
 * a `proxy-url`) is handed to client-node itself, imported only then, so no kubeconfig that
 * worked before stops working.
 */
import { existsSync, readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { CredentialFiles } from "./credential-files.js";

/** What the transport needs from a kubeconfig (client-node's `KubeConfig` has the same shape). */
export interface KubeAccess {
  getCurrentCluster(): { readonly server: string } | null;
  /** Adds the CA, the client credentials and the TLS settings to one request's options. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

type Fields = Readonly<Record<string, unknown>>;
interface Entry {
  readonly name: string;
  readonly fields: Fields;
}
interface Parsed {
  readonly clusters: Entry[];
  readonly users: Entry[];
  readonly contexts: Entry[];
  readonly current: string | undefined;
}

const NATIVE_USER = new Set([
  "token",
  "tokenFile",
  "client-certificate",
  "client-certificate-data",
  "client-key",
  "client-key-data",
  "username",
  "password",
]);
const NATIVE_CLUSTER = new Set([
  "server",
  "certificate-authority",
  "certificate-authority-data",
  "insecure-skip-tls-verify",
  "tls-server-name",
]);

function isHeaderList(h: RequestOptions["headers"]): h is readonly string[] {
  return Array.isArray(h);
}

function isFields(v: unknown): v is Fields {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Fields naming a file, relative to the kubeconfig's own folder as kubectl reads them. */
const PATH_FIELDS = ["certificate-authority", "client-certificate", "client-key", "tokenFile"];

function entries(doc: Fields, list: string, field: string, dir: string): Entry[] {
  const items = doc[list];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown) => {
    if (!isFields(item) || typeof item.name !== "string") return [];
    const fields: Record<string, unknown> = isFields(item[field]) ? { ...item[field] } : {};
    for (const key of PATH_FIELDS) {
      const p = fields[key];
      if (typeof p === "string" && p !== "" && !isAbsolute(p)) fields[key] = join(dir, p);
    }
    return [{ name: item.name, fields }];
  });
}

function parseFile(file: string): Parsed {
  const doc: unknown = parse(readFileSync(file, "utf8"));
  if (!isFields(doc)) throw new Error(`kubeconfig ${file}: not a kubeconfig document`);
  const current = doc["current-context"];
  const dir = dirname(file);
  return {
    clusters: entries(doc, "clusters", "cluster", dir),
    users: entries(doc, "users", "user", dir),
    contexts: entries(doc, "contexts", "context", dir),
    current: typeof current === "string" && current !== "" ? current : undefined,
  };
}

const str = (f: Fields, key: string): string | undefined =>
  typeof f[key] === "string" && f[key] !== "" ? f[key] : undefined;

/**
 * The credentials of one context, read once; embedded data is decoded once, files named by path
 * are checked at each request and read again when they changed (`credential-files.ts`: a
 * rotated certificate or token is used from the next request on).
 */
class NativeKubeConfig implements KubeAccess {
  constructor(
    private readonly cluster: Fields,
    private readonly user: Fields,
  ) {}

  getCurrentCluster(): { readonly server: string } | null {
    const server = str(this.cluster, "server");
    return server === undefined ? null : { server };
  }

  /** Decoded `*-data` values: they never change, so each is decoded once, not per request. */
  private readonly decoded = new Map<string, string>();
  /** Files named by path, re-read when they change. */
  private readonly files = new CredentialFiles();

  /**
   * A certificate or key as PEM text. Text, not bytes: the https Agent keys its connection
   * pool by the TLS options at every request, and encodes each Buffer option to do so (three
   * times a request for a CA, a certificate and a key: ~9 µs), while it takes a string as is.
   */
  private pem(f: Fields, key: string): string | undefined {
    const data = str(f, `${key}-data`);
    if (data !== undefined) {
      const known = this.decoded.get(data);
      if (known !== undefined) return known;
      const value = Buffer.from(data, "base64").toString("utf8");
      this.decoded.set(data, value);
      return value;
    }
    const file = str(f, key);
    return file === undefined ? undefined : this.files.read(file);
  }

  applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const ca = this.pem(this.cluster, "certificate-authority");
    if (ca !== undefined) opts.ca = ca;
    if (this.cluster["insecure-skip-tls-verify"] === true) opts.rejectUnauthorized = false;
    const servername = str(this.cluster, "tls-server-name");
    if (servername !== undefined) opts.servername = servername;
    const cert = this.pem(this.user, "client-certificate");
    const key = this.pem(this.user, "client-key");
    if (cert !== undefined) opts.cert = cert;
    if (key !== undefined) opts.key = key;
    // A token file is checked at every request: a projected service account token is rotated.
    const tokenFile = str(this.user, "tokenFile");
    const token =
      str(this.user, "token") ??
      (tokenFile === undefined ? undefined : this.files.read(tokenFile).trim());
    const username = str(this.user, "username");
    const authorization =
      token !== undefined
        ? `Bearer ${token}`
        : username !== undefined
          ? `Basic ${Buffer.from(`${username}:${str(this.user, "password") ?? ""}`).toString("base64")}`
          : undefined;
    if (authorization !== undefined) {
      const headers = opts.headers;
      if (headers === undefined || isHeaderList(headers)) opts.headers = { authorization };
      else headers.authorization = authorization;
    }
    return Promise.resolve();
  }
}

/** A kubeconfig this module does not read itself: client-node, imported on first use. */
class DelegatedKubeConfig implements KubeAccess {
  private loaded: Promise<KubeAccess> | undefined;

  constructor(
    private readonly server: string | undefined,
    private readonly file: string | undefined,
  ) {}

  getCurrentCluster(): { readonly server: string } | null {
    return this.server === undefined ? null : { server: this.server };
  }

  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    this.loaded ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      if (this.file !== undefined) kc.loadFromFile(this.file);
      else kc.loadFromDefault();
      return kc;
    });
    await (await this.loaded).applyToHTTPSOptions(opts);
  }
}

/** Merges several kubeconfig files as kubectl does for `$KUBECONFIG`: the first name wins. */
function merge(files: readonly Parsed[]): Parsed {
  const first = <T extends Entry>(lists: T[][]) => {
    const seen = new Set<string>();
    return lists.flat().filter((e) => !seen.has(e.name) && seen.add(e.name));
  };
  return {
    clusters: first(files.map((f) => f.clusters)),
    users: first(files.map((f) => f.users)),
    contexts: first(files.map((f) => f.contexts)),
    current: files.find((f) => f.current !== undefined)?.current,
  };
}

function fromParsed(parsed: Parsed, file: string | undefined): KubeAccess {
  const context = parsed.contexts.find((c) => c.name === parsed.current)?.fields ?? {};
  const clusterName = str(context, "cluster");
  const userName = str(context, "user");
  const cluster = parsed.clusters.find((c) => c.name === clusterName)?.fields ?? {};
  const user = parsed.users.find((u) => u.name === userName)?.fields ?? {};
  const native =
    Object.keys(user).every((k) => NATIVE_USER.has(k)) &&
    Object.keys(cluster).every((k) => NATIVE_CLUSTER.has(k));
  if (native) return new NativeKubeConfig(cluster, user);
  return new DelegatedKubeConfig(str(cluster, "server"), file);
}

/**
 * Loads a kubeconfig file (its current context), or the default chain as kubectl and client-node read it:
 * `$KUBECONFIG` (several files merged), `~/.kube/config`, then the in-cluster service account.
 */
export function loadKubeConfig(file?: string): KubeAccess {
  if (file !== undefined) return fromParsed(parseFile(file), file);
  const listed = (process.env.KUBECONFIG ?? "").split(delimiter).filter((f) => f !== "");
  if (listed.length > 0) {
    const present = listed.filter((f) => existsSync(f));
    if (present.length === 0)
      throw new Error(`KUBECONFIG names no existing file: ${listed.join(delimiter)}`);
    return present.length === 1
      ? fromParsed(parseFile(present[0] ?? ""), present[0])
      : fromParsed(merge(present.map(parseFile)), undefined);
  }
  const home = join(homedir(), ".kube", "config");
  if (existsSync(home)) return fromParsed(parseFile(home), home);
  const host = process.env.KUBERNETES_SERVICE_HOST;
  if (host !== undefined && existsSync(join(SERVICE_ACCOUNT_DIR, "token"))) {
    const port = process.env.KUBERNETES_SERVICE_PORT ?? "443";
    const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
    return new NativeKubeConfig(
      { server, "certificate-authority": join(SERVICE_ACCOUNT_DIR, "ca.crt") },
      { tokenFile: join(SERVICE_ACCOUNT_DIR, "token") },
    );
  }
  throw new Error(
    "no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
  );
}
