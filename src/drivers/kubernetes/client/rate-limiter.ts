import {
  fullBucket,
  reserveToken,
  type BucketState,
  type RateLimit,
} from "../../../domain/input/token-bucket.js";

/**
 * One process's budget of Kubernetes requests (a token bucket: `qps` sustained, `burst` at
 * once), shared by every client and transport of the process that is given it. Each request
 * attempt takes a token before it is sent; watch streams do not (they are long-running, as in
 * client-go), but the LIST that opens or relists a watch cache does. The time each request
 * waited is reported to the listeners (the `occ_kubernetes_client_wait_seconds` histogram).
 */
export class RequestLimiter {
  private state: BucketState;
  private readonly listeners: ((seconds: number) => void)[] = [];

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.state = fullBucket(limit, now());
  }

  /** Resolves when the request may be sent, with the seconds it waited. */
  async take(): Promise<number> {
    const r = reserveToken(this.limit, this.state, this.now());
    this.state = r.state;
    if (r.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, r.waitMs));
    const seconds = r.waitMs / 1000;
    for (const l of this.listeners) l(seconds);
    return seconds;
  }

  /** Also report every request's wait, in seconds, to `listener`. */
  onWait(listener: (seconds: number) => void): void {
    this.listeners.push(listener);
  }
}
