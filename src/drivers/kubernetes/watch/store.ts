import type { Cached } from "./projection.js";
import { contentChanged } from "./projection.js";

/** One change the store saw: what was there before and what is there now. */
export interface StoreChange {
  readonly namespace: string;
  readonly name: string;
  readonly previous: Cached | null;
  readonly current: Cached | null;
}

/**
 * A few objects keyed by namespace and name: an array while small — a Map costs about 200
 * bytes even for one entry, and each tenant has one per kind per index — and a Map past
 * {@link SMALL} (the cluster-scoped kinds' one bucket holds every Namespace).
 */
type Bucket = Cached[] | Map<string, Cached>;
const SMALL = 8;

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
const isAt = (o: Cached, namespace: string, name: string) =>
  o.metadata.name === name && (o.metadata.namespace ?? "") === namespace;

function bucketGet(b: Bucket, namespace: string, name: string): Cached | undefined {
  return Array.isArray(b) ? b.find((o) => isAt(o, namespace, name)) : b.get(keyOf(namespace, name));
}

/** Puts `obj` in `b` (replacing the same object's previous version); returns the bucket. */
function bucketSet(b: Bucket, namespace: string, obj: Cached): Bucket {
  const name = obj.metadata.name;
  if (!Array.isArray(b)) return b.set(keyOf(namespace, name), obj);
  const at = b.findIndex((o) => isAt(o, namespace, name));
  if (at >= 0) {
    b[at] = obj;
    return b;
  }
  // A new array of the exact length: `push` (and spread) would reserve 16 slots more.
  if (b.length < SMALL) return b.concat([obj]);
  const map = new Map(b.map((o) => [keyOf(o.metadata.namespace ?? "", o.metadata.name), o]));
  return map.set(keyOf(namespace, name), obj);
}

/** `b` without the object; `null` when nothing is left. */
function bucketDelete(b: Bucket, namespace: string, name: string): Bucket | null {
  if (!Array.isArray(b)) {
    b.delete(keyOf(namespace, name));
    return b.size === 0 ? null : b;
  }
  const rest = b.filter((o) => !isAt(o, namespace, name));
  return rest.length === 0 ? null : rest.slice();
}

const bucketValues = (b: Bucket): Cached[] => (Array.isArray(b) ? [...b] : [...b.values()]);

/**
 * Objects of one kind by namespace (`""` for cluster-scoped kinds) and name; optionally also
 * by the value of one label (`indexLabel`), so a label-selected read — a pass looking for its
 * tenant's namespace — costs one lookup instead of a scan of every cached object (which made
 * each pass's cost grow with the number of tenants).
 */
export class ObjectStore {
  private readonly byNamespace = new Map<string, Bucket>();
  /** `indexLabel`'s value → the objects carrying it. */
  private readonly byLabel = new Map<string, Bucket>();
  private count = 0;

  constructor(readonly indexLabel?: string) {}

  get size(): number {
    return this.count;
  }

  get(namespace: string, name: string): Cached | undefined {
    const names = this.byNamespace.get(namespace);
    return names === undefined ? undefined : bucketGet(names, namespace, name);
  }

  /** Every object in one namespace, or every object when `namespace` is undefined. */
  list(namespace?: string): Cached[] {
    if (namespace === undefined) return [...this.byNamespace.values()].flatMap(bucketValues);
    const names = this.byNamespace.get(namespace);
    return names === undefined ? [] : bucketValues(names);
  }

  /**
   * The objects whose `indexLabel` is `value` (in `namespace` when given); `undefined` when
   * the store keeps no index (the caller then scans {@link list}).
   */
  withLabel(value: string, namespace?: string): Cached[] | undefined {
    if (this.indexLabel === undefined) return undefined;
    const objects = this.byLabel.get(value);
    const found = objects === undefined ? [] : bucketValues(objects);
    return namespace === undefined
      ? found
      : found.filter((o) => (o.metadata.namespace ?? "") === namespace);
  }

  upsert(obj: Cached): StoreChange {
    const namespace = obj.metadata.namespace ?? "";
    const previous = this.get(namespace, obj.metadata.name) ?? null;
    if (previous === null) this.count++;
    else if (this.labelOf(previous) !== this.labelOf(obj)) this.unindex(namespace, previous);
    this.byNamespace.set(
      namespace,
      bucketSet(this.byNamespace.get(namespace) ?? [], namespace, obj),
    );
    this.index(namespace, obj);
    return { namespace, name: obj.metadata.name, previous, current: obj };
  }

  remove(namespace: string, name: string): StoreChange {
    const previous = this.get(namespace, name) ?? null;
    const names = this.byNamespace.get(namespace);
    if (previous !== null && names !== undefined) {
      const rest = bucketDelete(names, namespace, name);
      if (rest === null) this.byNamespace.delete(namespace);
      else this.byNamespace.set(namespace, rest);
      this.unindex(namespace, previous);
      this.count--;
    }
    return { namespace, name, previous, current: null };
  }

  private index(namespace: string, obj: Cached): void {
    const value = this.labelOf(obj);
    if (value === undefined) return;
    this.byLabel.set(value, bucketSet(this.byLabel.get(value) ?? [], namespace, obj));
  }

  private unindex(namespace: string, obj: Cached): void {
    const value = this.labelOf(obj);
    const objects = value === undefined ? undefined : this.byLabel.get(value);
    if (value === undefined || objects === undefined) return;
    const rest = bucketDelete(objects, namespace, obj.metadata.name);
    if (rest === null) this.byLabel.delete(value);
    else this.byLabel.set(value, rest);
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
