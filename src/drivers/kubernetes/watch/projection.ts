import { KINDS, type Kind } from "../client/index.js";

/**
 * The metadata a cached object keeps: what a pass reads (identity, version, markers, the
 * deletion mark, `generation`). `managedFields` (the bulk of most objects), `creationTimestamp`,
 * `ownerReferences` and `finalizers` are dropped: no pass reads them from the caches.
 */
export interface CachedMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly deletionTimestamp?: string;
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

/**
 * One copy of each repeated value a cache holds. `JSON.parse` makes a new string for every
 * occurrence and a new object for every subtree, yet most repeat: a tenant's ID is in the
 * labels of each of its objects (the same labels object five times), its namespace's name in
 * each object's `namespace`, and every tenant's `default-deny` or `allow-dns` spec is the same
 * document. Cached values are frozen, so equal ones can be one. At 10,000 tenants the copies
 * were most of the worker's memory. Bounded: past `max` distinct entries a table starts again
 * (later objects share less, nothing else changes).
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  /** A subtree's JSON text → the one frozen copy. */
  private readonly trees = new Map<string, unknown>();

  constructor(private readonly max = 100_000) {}

  get size(): number {
    return this.strings.size + this.trees.size;
  }

  intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size >= this.max) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  /** The one copy of the subtree whose JSON text is `key` (`made` when it is the first). */
  share<T>(key: string, made: T): T {
    if (this.trees.has(key)) return this.trees.get(key) as T;
    if (this.trees.size >= this.max) this.trees.clear();
    this.trees.set(key, made);
    return made;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A frozen, shared copy of a JSON value ({@link Interner}) and its JSON text. Objects are built
 * key by key in the server's order, so objects of one shape share V8's hidden class instead of
 * each holding a dictionary (which `delete` on a parsed object caused: about 450 bytes each).
 */
function compactTree(v: unknown, pool: Interner): { value: unknown; key: string } {
  if (typeof v === "string") return { value: pool.intern(v), key: JSON.stringify(v) };
  if (Array.isArray(v)) {
    const items = v.map((x) => compactTree(x, pool));
    const key = `[${items.map((i) => i.key).join(",")}]`;
    return { value: pool.share(key, Object.freeze(items.map((i) => i.value))), key };
  }
  if (!isRecord(v)) return { value: v, key: v === undefined ? "null" : JSON.stringify(v) };
  const out: Record<string, unknown> = {};
  const keys: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    const child = compactTree(x, pool);
    out[k] = child.value;
    keys.push(`${JSON.stringify(k)}:${child.key}`);
  }
  const key = `{${keys.join(",")}}`;
  return { value: pool.share(key, Object.freeze(out)), key };
}

const compact = (v: unknown, pool: Interner): unknown => compactTree(v, pool).value;

const str = (v: unknown): v is string => typeof v === "string";

/** The kept metadata (see {@link CachedMeta}), built as one literal in one fixed order. */
function compactMeta(kind: Kind, meta: Record<string, unknown>, pool: Interner): CachedMeta {
  const { namespace, uid, resourceVersion: rv, generation, labels, annotations } = meta;
  const identity = IDENTITY_ONLY.has(kind);
  const full = !identity;
  return Object.freeze({
    name: pool.intern(String(meta.name)),
    ...(str(namespace) ? { namespace: pool.intern(namespace) } : {}),
    ...(full && str(uid) ? { uid } : {}),
    ...(str(rv) ? { resourceVersion: rv } : {}),
    ...(full && typeof generation === "number" ? { generation } : {}),
    ...(full && isRecord(labels) ? { labels: compact(labels, pool) } : {}),
    ...(full && isRecord(annotations) ? { annotations: compact(annotations, pool) } : {}),
    ...(full && str(meta.deletionTimestamp) ? { deletionTimestamp: meta.deletionTimestamp } : {}),
  }) as CachedMeta;
}

/** Reduces a watched object to what is cached; `null` when it has no name. */
export function projectObject(kind: Kind, raw: unknown, pool = new Interner()): Cached | null {
  if (!isRecord(raw) || !isRecord(raw.metadata)) return null;
  const name = raw.metadata.name;
  if (typeof name !== "string" || name === "") return null;
  const kept = (KEPT_FIELDS[kind] ?? []).filter((field) => field in raw);
  return Object.freeze({
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: compactMeta(kind, raw.metadata, pool),
    ...Object.fromEntries(kept.map((field) => [field, compact(raw[field], pool)])),
  });
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
