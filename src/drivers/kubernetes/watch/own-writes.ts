import type { Kind } from "../client/index.js";

/** One object at one version, as a write returned it or a watch event carried it. */
export interface ObjectVersion {
  readonly kind: Kind;
  /** `""` for cluster-scoped kinds. */
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
}

/**
 * A watch event that carries exactly the version one of the worker's own writes returned is
 * that write's echo: the pass that wrote it already had that state in hand (it created the
 * object, or changed it under a resourceVersion precondition it had read), so the event brings
 * nothing the pass did not know and need not queue another pass. Any other version — a
 * foreign change after ours, or before ours that our precondition would have refused — is
 * news and queues a pass as usual. A delete (no current object) is never an echo.
 *
 * The decision is pure: `written` holds the keys ({@link versionKey}) of the versions our
 * writes returned that no event has matched yet.
 */
export function isOwnEcho(
  event: ObjectVersion | null,
  written: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): boolean {
  return event !== null && written.has(versionKey(event));
}

/** The key of one object at one version. */
export function versionKey(v: ObjectVersion): string {
  return `${v.kind}/${v.namespace}/${v.name}@${v.resourceVersion}`;
}

export interface OwnWritesOptions {
  /** How long an unmatched version is remembered (its event may never come: a no-op write). */
  readonly ttlMs?: number;
  /** At most this many versions are remembered; the oldest go first. */
  readonly max?: number;
  readonly now?: () => number;
}

/**
 * The versions the worker's own writes returned, until their watch event arrives (then the
 * entry is consumed) or `ttlMs` passes (a write that changed nothing emits no event). Bounded
 * in time and count, so memory does not grow with tenants: an entry lives from a write's
 * response to its event, normally milliseconds. Forgetting an entry early only costs one
 * extra pass, never a missed change.
 */
export class OwnWrites {
  private readonly written = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(opts: OwnWritesOptions = {}) {
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.max = opts.max ?? 20_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.written.size;
  }

  /** Remembers the version a write of ours returned. */
  record(v: ObjectVersion): void {
    const at = this.now();
    this.prune(at);
    const key = versionKey(v);
    this.written.delete(key); // re-inserted last: the Map stays in insertion (age) order
    this.written.set(key, at);
    if (this.written.size > this.max) {
      const oldest = this.written.keys().next();
      if (oldest.done !== true) this.written.delete(oldest.value);
    }
  }

  /**
   * True when `event` is the echo of one of our writes ({@link isOwnEcho}); the entry is
   * consumed, so the same version is suppressed at most once.
   */
  consume(event: ObjectVersion | null): boolean {
    this.prune(this.now());
    if (!isOwnEcho(event, this.written) || event === null) return false;
    this.written.delete(versionKey(event));
    return true;
  }

  private prune(at: number): void {
    for (const [key, recorded] of this.written) {
      if (at - recorded < this.ttlMs) return;
      this.written.delete(key);
    }
  }
}
