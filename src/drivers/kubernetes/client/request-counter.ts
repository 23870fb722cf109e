import type { KubeVerb } from "./errors.js";

/** The verbs that change state; everything else is a read. */
export const WRITE_VERBS: ReadonlySet<KubeVerb> = new Set(["create", "patch", "delete"]);

/**
 * Counts Kubernetes requests by verb and outcome code (HTTP status, `timeout` or `network`).
 * The benchmark reads it to prove "no write on an unchanged pass", and `/metrics` exports it.
 */
export class RequestCounter {
  private readonly counts = new Map<string, number>();
  private readonly listeners: ((verb: KubeVerb, code: string) => void)[] = [];

  record(verb: KubeVerb, code: string): void {
    const key = `${verb} ${code}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    for (const l of this.listeners) l(verb, code);
  }

  /** Also report every request to `listener` (e.g. a Prometheus counter). */
  onRecord(listener: (verb: KubeVerb, code: string) => void): void {
    this.listeners.push(listener);
  }

  /** `{ "get 200": 3, "patch 409": 1, … }` */
  snapshot(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.counts);
  }

  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  writes(): number {
    let n = 0;
    for (const [key, v] of this.counts) {
      const verb = key.split(" ")[0];
      if ([...WRITE_VERBS].some((write) => write === verb)) n += v;
    }
    return n;
  }

  reset(): void {
    this.counts.clear();
  }
}
