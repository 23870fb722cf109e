import {
  parseKindObject,
  type Kind,
  type KindObject,
  type ListOptions,
  type ObjectClient,
  type ObjectRef,
} from "../client/index.js";
import type { Reflector } from "./reflector.js";
import type { Cached } from "./projection.js";

/** One term of an equality-based label selector. */
type Term =
  | { readonly op: "=" | "!="; readonly key: string; readonly value: string }
  | { readonly op: "exists" | "!exists"; readonly key: string };

/**
 * Parses `a=b,c!=d,e,!f` (the equality-based selectors the product writes); `null` for any
 * other syntax (set-based `in`/`notin`), which the cache does not answer.
 */
export function parseSelector(selector: string | undefined): Term[] | null {
  if (selector === undefined || selector.trim() === "") return [];
  const terms: Term[] = [];
  for (const raw of selector.split(",")) {
    const part = raw.trim();
    const m = /^(!?)([A-Za-z0-9._/-]+)(?:(==|=|!=)([A-Za-z0-9._-]*))?$/.exec(part);
    if (m === null) return null;
    const [, not, key = "", op, value = ""] = m;
    if (op === undefined) terms.push({ op: not === "!" ? "!exists" : "exists", key });
    else if (not === "!") return null;
    else terms.push({ op: op === "!=" ? "!=" : "=", key, value });
  }
  return terms;
}

function matches(terms: readonly Term[], labels: Readonly<Record<string, string>>): boolean {
  return terms.every((t) => {
    const v = labels[t.key];
    switch (t.op) {
      case "=":
        return v === t.value;
      case "!=":
        return v !== t.value;
      case "exists":
        return v !== undefined;
      case "!exists":
        return v === undefined;
    }
  });
}

/**
 * True when every object a query selects is also selected by the cache's own selector, i.e.
 * the cache holds the complete answer. A cache without a selector holds everything; one that
 * watches `key` (exists) answers a query that requires `key=value` or `key`.
 */
function covers(cacheTerms: readonly Term[], query: readonly Term[]): boolean {
  return cacheTerms.every(
    (c) =>
      c.op === "exists" &&
      query.some((q) => q.key === c.key && (q.op === "=" || q.op === "exists")),
  );
}

/** A cached object as its kind, parsed like a read of `asked` from the API server. */
function parseCached<K extends Kind>(
  kind: K,
  cached: Cached,
  asked?: Partial<ObjectRef>,
): KindObject<K> {
  return parseKindObject(kind, cached, asked);
}

/** Kinds whose cache answers reads (a RoleBinding's holds its identity and roleRef only). */
const SERVED: ReadonlySet<Kind> = new Set([
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "RoleBinding",
]);

/**
 * An `ObjectClient` that answers the pass's reads of watched kinds from the watch caches once
 * they are synced and healthy, and sends everything else — writes, unwatched kinds, field
 * selectors, a cache that is relisting or failing — to `inner`. A `get` that misses the cache
 * is asked of the API server too: a label-selected cache does not know an unlabelled object,
 * and an object written a moment ago may not have arrived yet, so only a hit is trusted. A
 * pass over an unchanged ready namespace therefore costs no request at all.
 */
export function cachedObjectClient(
  inner: ObjectClient,
  reflectors: readonly Reflector[],
): ObjectClient {
  const byKind = new Map<Kind, { reflector: Reflector; terms: Term[] }>();
  for (const r of reflectors) {
    const terms = parseSelector(r.opts.labelSelector);
    if (SERVED.has(r.kind) && terms !== null) byKind.set(r.kind, { reflector: r, terms });
  }
  const cacheOf = (kind: Kind) => {
    const c = byKind.get(kind);
    return c?.reflector.ready === true ? c : undefined;
  };
  const hit = (kind: Kind, ref: ObjectRef): Cached | undefined =>
    cacheOf(kind)?.reflector.store.get(ref.namespace ?? "", ref.name);

  return {
    ...inner,
    counter: inner.counter,
    async get<K extends Kind>(kind: K, ref: ObjectRef) {
      const cached = hit(kind, ref);
      return cached !== undefined ? parseCached(kind, cached, ref) : inner.get(kind, ref);
    },
    async find<K extends Kind>(kind: K, ref: ObjectRef) {
      const cached = hit(kind, ref);
      return cached !== undefined ? parseCached(kind, cached, ref) : inner.find(kind, ref);
    },
    async list<K extends Kind>(kind: K, opts: ListOptions = {}) {
      const cache = cacheOf(kind);
      const query = parseSelector(opts.labelSelector);
      if (
        cache === undefined ||
        query === null ||
        opts.fieldSelector !== undefined ||
        !covers(cache.terms, query)
      ) {
        return inner.list(kind, opts);
      }
      const store = cache.reflector.store;
      // A term `indexLabel=value` narrows the candidates to one index entry.
      const indexed = query.find((t) => t.op === "=" && t.key === store.indexLabel);
      const value = indexed !== undefined && "value" in indexed ? indexed.value : undefined;
      const candidates =
        (value === undefined ? undefined : store.withLabel(value, opts.namespace)) ??
        store.list(opts.namespace);
      return candidates
        .filter((o) => matches(query, o.metadata.labels ?? {}))
        .map((o) =>
          parseCached(
            kind,
            o,
            opts.namespace !== undefined ? { namespace: opts.namespace } : undefined,
          ),
        );
    },
  };
}
