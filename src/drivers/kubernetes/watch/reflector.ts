import { clusterCollectionPath, isKubeError, type Kind } from "../client/index.js";
import { sleep } from "../client/abortable.js";
import type { KubeTransport } from "../client/transport.js";
import { contentChanged, Interner, projectObject, type Cached } from "./projection.js";
import { ObjectStore, type StoreChange } from "./store.js";

/**
 * Why a watch stream was opened again: the server ended it (its `timeoutSeconds`, or the
 * connection closed), the resourceVersion expired (`410 Gone`: relist), or a request failed
 * (network, 5xx, 403…: backoff, then resume from the last resourceVersion).
 */
export const WATCH_RESTART_REASONS = ["ended", "gone", "error"] as const;
export type WatchRestartReason = (typeof WATCH_RESTART_REASONS)[number];

/** Where a change came from: a watch event, or the difference a relist found. */
export type ChangeSource = "watch" | "relist";

export interface ReflectorOptions {
  readonly transport: KubeTransport;
  readonly kind: Kind;
  /** Server-side label selector of the list and the watch; absent = every object. */
  readonly labelSelector?: string;
  /** A label whose value the cache indexes (`ObjectStore.withLabel`); absent = no index. */
  readonly indexLabel?: string;
  /**
   * Every change after the first list: a watch event (`watch`: one version of one object, in
   * the server's order), or a difference a relist found (`relist`: the versions between are
   * unknown).
   */
  readonly onChange: (change: StoreChange, source: ChangeSource) => void;
  readonly onRestart?: (reason: WatchRestartReason, err?: unknown) => void;
  /** First backoff after a failed request; doubles up to `maxBackoffMs`. Default 250 ms. */
  readonly minBackoffMs?: number;
  /** Default 30 s. */
  readonly maxBackoffMs?: number;
  /** Each watch lasts between this and twice this (jittered, as client-go). Default 300 s. */
  readonly watchSeconds?: number;
  /** Items per list page. Default 500. */
  readonly pageSize?: number;
  /** Strings shared with the process's other caches (a tenant's ID is in all of them). */
  readonly strings?: Interner;
  /** What the cache keeps of each object; default {@link projectObject} of `kind`. */
  readonly project?: (raw: unknown, strings: Interner) => Cached | null;
}

interface ListPage {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: readonly unknown[];
}

interface WatchEvent {
  readonly type?: string;
  readonly object?: {
    readonly code?: number;
    readonly metadata?: { readonly resourceVersion?: string };
  };
}

/** The resourceVersion the watch resumed from is older than the server keeps. */
class Expired extends Error {
  override readonly name = "Expired";
}

/**
 * Keeps one kind's cache in step with the API server, in the shape of client-go's reflector:
 * list (paged) → watch from the list's resourceVersion with bookmarks → on the stream's end
 * watch again from the last resourceVersion seen; on `410 Gone` relist and report the
 * difference as changes; on any other failure back off (jittered, doubling) and resume. The
 * cache answers reads only while `ready`: listed once and the last request did not fail.
 */
export class Reflector {
  readonly store: ObjectStore;
  private readonly strings: Interner;
  private readonly abort = new AbortController();
  private stream: AbortController | null = null;
  private synced = false;
  private healthy = false;
  private resourceVersion: string | null = null;
  private loop: Promise<void> | null = null;
  /** Those waiting for the first list: told `true` once it is in, `false` at a stop. */
  private readonly syncWaiters: ((synced: boolean) => void)[] = [];

  constructor(readonly opts: ReflectorOptions) {
    this.store = new ObjectStore(opts.indexLabel);
    this.strings = opts.strings ?? new Interner();
  }

  get kind(): Kind {
    return this.opts.kind;
  }

  /** Listed at least once and no request has failed since the last success. */
  get ready(): boolean {
    return this.synced && this.healthy;
  }

  /**
   * {@link ready}, not relisting after `410 Gone` (the cache waits for its fresh list), and
   * not stopped: what a cache that must never answer from stale content checks.
   */
  get current(): boolean {
    return this.ready && this.resourceVersion !== null && !this.stopped();
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Resolves once the first list is in the cache (or `timeoutMs` passed: `false`). */
  waitForSync(timeoutMs: number): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped()) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = (synced: boolean) => {
        clearTimeout(timer);
        resolve(synced);
      };
      const timer = setTimeout(() => {
        this.syncWaiters.splice(this.syncWaiters.indexOf(waiter), 1);
        resolve(false);
      }, timeoutMs);
      this.syncWaiters.push(waiter);
    });
  }

  /**
   * Ends the loop: the stream in flight ends, a backoff wait is cut short, those waiting for
   * the first list are told `false` (their timers cleared). A list in flight ends when its
   * transport is closed (the caller's: `WatchSet.stop` closes it right after this call).
   */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const wake of this.syncWaiters.splice(0)) wake(false);
    await this.loop;
  }

  /**
   * Ends the current stream and watches again from `rv`, exactly as after a dropped
   * connection; with a version the server no longer keeps, the next watch answers `410 Gone`
   * and the reflector relists (tests use this to exercise the relist).
   */
  resumeFrom(rv: string): void {
    this.stream?.abort();
    this.resourceVersion = rv;
  }

  private stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped()) {
      try {
        if (this.resourceVersion === null) await this.relist();
        await this.watch(this.resourceVersion ?? "");
        failures = 0;
        if (!this.stopped()) this.opts.onRestart?.("ended");
      } catch (err) {
        if (this.stopped()) return;
        if (err instanceof Expired || isKubeError(err, "gone")) {
          this.resourceVersion = null;
          this.opts.onRestart?.("gone", err);
          continue;
        }
        this.healthy = false;
        failures++;
        this.opts.onRestart?.("error", err);
        await sleep(this.backoffMs(failures), this.abort.signal);
      }
    }
  }

  private backoffMs(failures: number): number {
    const min = this.opts.minBackoffMs ?? 250;
    const max = this.opts.maxBackoffMs ?? 30_000;
    const exp = Math.min(max, min * 2 ** (failures - 1));
    return exp / 2 + Math.random() * (exp / 2);
  }

  private project(raw: unknown): Cached | null {
    const project = this.opts.project;
    return project === undefined
      ? projectObject(this.opts.kind, raw, this.strings)
      : project(raw, this.strings);
  }

  private path(params: Record<string, string | undefined>): string {
    const q = new URLSearchParams();
    if (this.opts.labelSelector !== undefined) q.set("labelSelector", this.opts.labelSelector);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
    return `${clusterCollectionPath(this.opts.kind)}?${q.toString()}`;
  }

  /** A full, paged list; replaces the cache and reports the difference (none the first time). */
  private async relist(): Promise<void> {
    // Each page is reduced as it arrives: the full objects of a 10,000-item list (their
    // managedFields included) are never all held at once.
    const projected: Cached[] = [];
    let token: string | undefined;
    let rv = "";
    do {
      const page = (await this.opts.transport.call({
        verb: "list",
        method: "GET",
        path: this.path({ limit: String(this.opts.pageSize ?? 500), continue: token }),
      })) as ListPage;
      for (const raw of page.items ?? []) {
        const obj = this.project(raw);
        if (obj !== null) projected.push(obj);
      }
      rv = page.metadata?.resourceVersion ?? rv;
      token = page.metadata?.continue === "" ? undefined : page.metadata?.continue;
    } while (token !== undefined);
    const first = !this.synced;
    const changes = this.store.replace(projected);
    this.resourceVersion = rv;
    this.synced = true;
    this.healthy = true;
    for (const wake of this.syncWaiters.splice(0)) wake(true);
    if (!first) for (const change of changes) this.opts.onChange(change, "relist");
  }

  /** One watch stream from `rv`; resolves when the server ends it. */
  private async watch(rv: string): Promise<void> {
    // Stopped during the list: an abort before the listener below exists would be missed.
    if (this.stopped()) return;
    const base = this.opts.watchSeconds ?? 300;
    const timeoutSeconds = Math.round(base * (1 + Math.random()));
    const path = this.path({
      watch: "1",
      resourceVersion: rv,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(timeoutSeconds),
    });
    const stream = new AbortController();
    this.stream = stream;
    const stop = () => {
      stream.abort();
    };
    this.abort.signal.addEventListener("abort", stop, { once: true });
    await this.opts.transport
      .stream(
        path,
        {
          opened: () => {
            this.healthy = true;
          },
          onLine: (line) => {
            this.apply(JSON.parse(line) as WatchEvent);
          },
        },
        { idleMs: (timeoutSeconds + 60) * 1_000, signal: stream.signal },
      )
      .finally(() => {
        this.abort.signal.removeEventListener("abort", stop);
        this.stream = null;
      });
  }

  private apply(event: WatchEvent): void {
    const rv = event.object?.metadata?.resourceVersion;
    switch (event.type) {
      case "BOOKMARK":
        if (rv !== undefined) this.resourceVersion = rv;
        return;
      case "ERROR":
        if (event.object?.code === 410) throw new Expired("watch resourceVersion expired");
        throw new Error(`watch error event: ${JSON.stringify(event.object)}`);
      case "ADDED":
      case "MODIFIED": {
        const obj = this.project(event.object);
        if (obj === null) return;
        const change = this.store.upsert(obj);
        if (rv !== undefined) this.resourceVersion = rv;
        if (change.previous === null || contentChanged(change.previous, obj)) {
          this.opts.onChange(change, "watch");
        }
        return;
      }
      case "DELETED": {
        const obj = this.project(event.object);
        if (obj === null) return;
        const change = this.store.remove(obj.metadata.namespace ?? "", obj.metadata.name);
        if (rv !== undefined) this.resourceVersion = rv;
        if (change.previous !== null) this.opts.onChange(change, "watch");
        return;
      }
    }
  }
}
