import type {
  ApplyOptions,
  Kind,
  KindObject,
  KubeObjectLike,
  ObjectClient,
  ObjectRef,
  PatchType,
  WriteOptions,
} from "../client/index.js";
import type { ObjectVersion, OwnWrites } from "./own-writes.js";

function resourceVersionOf(obj: unknown): string | undefined {
  if (typeof obj !== "object" || obj === null || !("metadata" in obj)) return undefined;
  const meta: unknown = obj.metadata;
  if (typeof meta !== "object" || meta === null || !("resourceVersion" in meta)) return undefined;
  const rv: unknown = meta.resourceVersion;
  return typeof rv === "string" && rv !== "" ? rv : undefined;
}

function versionOf(kind: Kind, written: KubeObjectLike): ObjectVersion | null {
  const name = written.metadata?.name;
  const resourceVersion = resourceVersionOf(written);
  if (name === undefined || resourceVersion === undefined) return null;
  return { kind, namespace: written.metadata?.namespace ?? "", name, resourceVersion };
}

/**
 * An `ObjectClient` that tells `own` the version each of its writes of a watched kind
 * returned, so the watch event of that write can be recognised as an echo (`own-writes.ts`).
 * Only writes whose result the writer knew in full are recorded: a create (a new object), or
 * an apply or merge patch carrying a `resourceVersion` precondition (the server applied it to
 * exactly the version the pass had read; if that write changed nothing, the version returned
 * is the one the pass read). A write without a precondition may return a version made by a
 * foreign change the pass never saw, so it is not recorded. Reads and deletes pass through.
 */
export function recordOwnWrites(
  inner: ObjectClient,
  own: OwnWrites,
  watched: ReadonlySet<Kind>,
): ObjectClient {
  const note = <K extends Kind>(kind: K, written: KindObject<K>): KindObject<K> => {
    const v = watched.has(kind) ? versionOf(kind, written) : null;
    if (v !== null) own.record(v);
    return written;
  };
  return {
    ...inner,
    counter: inner.counter,
    async create<K extends Kind>(kind: K, obj: KubeObjectLike, opts?: WriteOptions) {
      const written = await inner.create(kind, obj, opts);
      return opts?.dryRun === true ? written : note(kind, written);
    },
    async apply<K extends Kind>(kind: K, obj: KubeObjectLike, opts?: ApplyOptions) {
      const written = await inner.apply(kind, obj, opts);
      const fenced = resourceVersionOf(obj) !== undefined && opts?.dryRun !== true;
      return fenced ? note(kind, written) : written;
    },
    async patch<K extends Kind>(
      kind: K,
      ref: ObjectRef,
      patch: unknown,
      opts: WriteOptions & { readonly type: PatchType },
    ) {
      const written = await inner.patch(kind, ref, patch, opts);
      const fenced =
        opts.type !== "json" && resourceVersionOf(patch) !== undefined && opts.dryRun !== true;
      return fenced ? note(kind, written) : written;
    },
  };
}
