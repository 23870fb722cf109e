/**
 * The connection pool of a transport's plain requests: an undici `Pool` to the API server,
 * kept while the TLS material the kubeconfig puts on a request stays the same. undici rather
 * than `node:https`: a pool is opened for one origin with its TLS options once, where the https
 * `Agent` keys its socket pool by each request's options (a name built from the CA, the
 * certificate and the key, at each request) and walks its free list in JavaScript. Measured
 * with the bare client's writes of a managed Namespace (bench/bare-provisioning.ts, 8 in flight,
 * the cluster on core 0 and the client on core 1, eight alternating rounds of 500): the client's
 * CPU per Namespace, median, 3.40 ms through `node:https`, 2.67 ms through this pool.
 *
 * The kubeconfig's material is read at each request (a rotated certificate is picked up): when
 * it differs from the open pool's, a new pool is opened for it and the old one is closed once
 * its requests in flight have ended.
 */
import type { RequestOptions } from "node:https";
import { Pool } from "undici";

/** The TLS settings of a request that decide which connections may carry it. */
interface TlsMaterial {
  readonly ca: RequestOptions["ca"];
  readonly cert: RequestOptions["cert"];
  readonly key: RequestOptions["key"];
  readonly servername: string | undefined;
  readonly rejectUnauthorized: boolean | undefined;
}

function materialOf(opts: RequestOptions): TlsMaterial {
  return {
    ca: opts.ca,
    cert: opts.cert,
    key: opts.key,
    servername: opts.servername,
    rejectUnauthorized: opts.rejectUnauthorized,
  };
}

/**
 * The request carries `material`: the same strings (compared by content) or the same objects.
 * Read from the options as they are, so a request on the open pool allocates nothing for it.
 */
function carries(opts: RequestOptions, material: TlsMaterial): boolean {
  return (
    opts.ca === material.ca &&
    opts.cert === material.cert &&
    opts.key === material.key &&
    opts.servername === material.servername &&
    opts.rejectUnauthorized === material.rejectUnauthorized
  );
}

/** Connections per pool, as the https Agent's `maxSockets` was. */
const CONNECTIONS = 64;
/**
 * An idle connection is closed after this long (undici's default is 4 s): a worker between
 * passes would otherwise pay a TLS handshake for most of its requests. Below the 90 s after
 * which kube-apiserver closes idle connections itself.
 */
const KEEP_ALIVE_MS = 30_000;

export class TlsPool {
  private current: { readonly material: TlsMaterial; readonly pool: Pool } | undefined;
  private closed = false;

  constructor(private readonly origin: string) {}

  /** The pool for a request with these options (after the kubeconfig applied its own). */
  poolFor(opts: RequestOptions): Pool {
    if (this.closed) throw new Error("the transport is closed");
    if (this.current !== undefined && carries(opts, this.current.material)) {
      return this.current.pool;
    }
    const material = materialOf(opts);
    const previous = this.current?.pool;
    const { ca, cert, key, servername, rejectUnauthorized } = material;
    const pool = new Pool(this.origin, {
      connections: CONNECTIONS,
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: {
        ...(ca !== undefined ? { ca } : {}),
        ...(cert !== undefined ? { cert } : {}),
        ...(key !== undefined ? { key } : {}),
        ...(servername !== undefined ? { servername } : {}),
        ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
      },
    });
    this.current = { material, pool };
    // Requests in flight on the previous pool finish; it takes no new ones.
    previous?.close().catch(() => undefined);
    return pool;
  }

  /** Ends every connection at once (requests in flight fail). */
  destroy(): void {
    this.closed = true;
    this.current?.pool.destroy().catch(() => undefined);
    this.current = undefined;
  }
}
