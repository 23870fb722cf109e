import { KINDS, type Kind } from "../client/index.js";

/** The metadata a cached object keeps (everything the API server sent but `managedFields`). */
export interface CachedMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

/** One cached object: the server's JSON reduced to the fields a pass reads, deep-frozen. */
export interface Cached {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: CachedMeta;
  readonly [key: string]: unknown;
}

/**
 * The top-level fields each watched kind keeps beside `metadata`. A ResourceQuota's `status`
 * (usage, rewritten by the quota controller on every Pod change) is dropped: no pass reads it,
 * and keeping it would turn usage updates into tenant passes. A RoleBinding keeps its identity
 * and its (immutable) `roleRef` only: enough for a pass to see that a tenant's grant still
 * names the tenant role, or was revoked (lifecycle.md §1–2).
 */
const KEPT_FIELDS: Partial<Record<Kind, readonly string[]>> = {
  Namespace: ["spec", "status"],
  NetworkPolicy: ["spec"],
  ResourceQuota: ["spec"],
  LimitRange: ["spec"],
  RoleBinding: ["roleRef"],
};

const IDENTITY_ONLY: ReadonlySet<Kind> = new Set(["RoleBinding"]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}

/** Reduces a watched object to what is cached; `null` when it has no name. */
export function projectObject(kind: Kind, raw: unknown): Cached | null {
  if (!isRecord(raw) || !isRecord(raw.metadata)) return null;
  // managedFields is the bulk of most objects and no pass reads it.
  const meta: Record<string, unknown> = { ...raw.metadata };
  delete meta.managedFields;
  if (typeof meta.name !== "string" || meta.name === "") return null;
  const metadata: CachedMeta = IDENTITY_ONLY.has(kind)
    ? {
        name: meta.name,
        ...(typeof meta.namespace === "string" ? { namespace: meta.namespace } : {}),
        ...(typeof meta.resourceVersion === "string"
          ? { resourceVersion: meta.resourceVersion }
          : {}),
      }
    : (meta as CachedMeta);
  const kept: Record<string, unknown> = {};
  for (const field of KEPT_FIELDS[kind] ?? []) if (field in raw) kept[field] = raw[field];
  return deepFreeze({ apiVersion: KINDS[kind].apiVersion, kind, metadata, ...kept });
}

/** True when two cached objects differ in anything but their resourceVersion. */
export function contentChanged(a: Cached, b: Cached): boolean {
  const strip = (c: Cached) => {
    const meta: Record<string, unknown> = { ...c.metadata };
    delete meta.resourceVersion;
    return JSON.stringify({ ...c, metadata: meta });
  };
  return strip(a) !== strip(b);
}

/** One change the store saw: what was there before and what is there now. */
export interface StoreChange {
  readonly namespace: string;
  readonly name: string;
  readonly previous: Cached | null;
  readonly current: Cached | null;
}

/**
 * Objects of one kind by namespace (`""` for cluster-scoped kinds) and name; optionally also
 * by the value of one label (`indexLabel`), so a label-selected read — a pass looking for its
 * tenant's namespace — costs one lookup instead of a scan of every cached object (which made
 * each pass's cost grow with the number of tenants).
 */
export class ObjectStore {
  private readonly byNamespace = new Map<string, Map<string, Cached>>();
  /** `indexLabel`'s value → `namespace/name` → object. */
  private readonly byLabel = new Map<string, Map<string, Cached>>();
  private count = 0;

  constructor(readonly indexLabel?: string) {}

  get size(): number {
    return this.count;
  }

  get(namespace: string, name: string): Cached | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Every object in one namespace, or every object when `namespace` is undefined. */
  list(namespace?: string): Cached[] {
    if (namespace !== undefined) return [...(this.byNamespace.get(namespace)?.values() ?? [])];
    return [...this.byNamespace.values()].flatMap((m) => [...m.values()]);
  }

  /**
   * The objects whose `indexLabel` is `value` (in `namespace` when given); `undefined` when
   * the store keeps no index (the caller then scans {@link list}).
   */
  withLabel(value: string, namespace?: string): Cached[] | undefined {
    if (this.indexLabel === undefined) return undefined;
    const found = [...(this.byLabel.get(value)?.values() ?? [])];
    return namespace === undefined
      ? found
      : found.filter((o) => (o.metadata.namespace ?? "") === namespace);
  }

  upsert(obj: Cached): StoreChange {
    const namespace = obj.metadata.namespace ?? "";
    let names = this.byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(namespace, names);
    }
    const previous = names.get(obj.metadata.name) ?? null;
    if (previous === null) this.count++;
    else if (this.labelOf(previous) !== this.labelOf(obj)) this.unindex(namespace, previous);
    names.set(obj.metadata.name, obj);
    this.index(namespace, obj);
    return { namespace, name: obj.metadata.name, previous, current: obj };
  }

  remove(namespace: string, name: string): StoreChange {
    const names = this.byNamespace.get(namespace);
    const previous = names?.get(name) ?? null;
    if (previous !== null) {
      names?.delete(name);
      this.unindex(namespace, previous);
      this.count--;
      if (names?.size === 0) this.byNamespace.delete(namespace);
    }
    return { namespace, name, previous, current: null };
  }

  private index(namespace: string, obj: Cached): void {
    const value = this.labelOf(obj);
    if (value === undefined) return;
    let objects = this.byLabel.get(value);
    if (objects === undefined) {
      objects = new Map();
      this.byLabel.set(value, objects);
    }
    objects.set(`${namespace}/${obj.metadata.name}`, obj);
  }

  private unindex(namespace: string, obj: Cached): void {
    const value = this.labelOf(obj);
    if (value === undefined) return;
    const objects = this.byLabel.get(value);
    objects?.delete(`${namespace}/${obj.metadata.name}`);
    if (objects?.size === 0) this.byLabel.delete(value);
  }

  private labelOf(obj: Cached): string | undefined {
    return this.indexLabel === undefined ? undefined : obj.metadata.labels?.[this.indexLabel];
  }

  /**
   * Replaces the whole content with a fresh list and returns what differs from before (added,
   * changed in content, removed), so a relist after `410 Gone` or an outage loses no change.
   */
  replace(items: readonly Cached[]): StoreChange[] {
    const changes: StoreChange[] = [];
    const seen = new Set<string>();
    for (const obj of items) {
      const change = this.upsert(obj);
      seen.add(`${change.namespace}/${change.name}`);
      if (change.previous === null || contentChanged(change.previous, obj)) changes.push(change);
    }
    for (const obj of this.list()) {
      const namespace = obj.metadata.namespace ?? "";
      if (!seen.has(`${namespace}/${obj.metadata.name}`)) {
        changes.push(this.remove(namespace, obj.metadata.name));
      }
    }
    return changes;
  }
}
