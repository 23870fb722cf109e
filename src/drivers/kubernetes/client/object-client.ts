import type { KubeAccess } from "./kubeconfig.js";
import { ignoreNotFound } from "./errors.js";
import { parseKindObject, type KindObject } from "./kind-objects.js";
import { KINDS, collectionPath, objectPath, type Kind, type ObjectRef } from "./kinds.js";
import { RequestCounter } from "./request-counter.js";
import { KubeTransport, type TransportOptions } from "./transport.js";

/** What the client needs of an object it writes: the rest is sent as given. */
export interface KubeObjectLike {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?:
    { readonly name?: string | undefined; readonly namespace?: string | undefined } | undefined;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface WriteOptions {
  /** Field manager recorded by the API server. Default `occ`. */
  readonly fieldManager?: string;
  /** Server-side dry run: validated and defaulted, never stored. */
  readonly dryRun?: boolean;
}

export interface ApplyOptions extends WriteOptions {
  /**
   * Take over fields another manager owns. Default false: a field conflict is a 409. Only for
   * objects OCC owns outright, whose markers were verified and whose `resourceVersion` the
   * apply carries — never for a namespace binding.
   */
  readonly force?: boolean;
}

export type PatchType = "merge" | "json" | "strategic";

export interface DeleteOptions {
  /**
   * Required: the UID the caller verified. The API server refuses the delete (409) when the
   * object under that name is another one, so a recreated object is never deleted by mistake.
   */
  readonly uid: string;
  /** Also require this exact resourceVersion (the object unchanged since it was verified). */
  readonly resourceVersion?: string;
  readonly propagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/**
 * The read side of the Kubernetes port (controller-runtime's `client.Reader`): get and list
 * over any kind of the `KINDS` table. Every object returned is typed by its kind and was parsed
 * (`parseKindObject`): the caller never picks the type of what was read. Reads are retried on
 * transient failures within a small budget.
 */
export interface ObjectReader {
  /** Throws `KubeApiError` with category `not-found` when absent. */
  get<K extends Kind>(kind: K, ref: ObjectRef): Promise<KindObject<K>>;
  /** `get`, or `undefined` when absent. */
  find<K extends Kind>(kind: K, ref: ObjectRef): Promise<KindObject<K> | undefined>;
  list<K extends Kind>(kind: K, opts?: ListOptions): Promise<KindObject<K>[]>;
}

/**
 * The write side of the Kubernetes port (controller-runtime's `client.Writer`): create, apply,
 * patch and delete, each sent exactly once. There is no status write: the product never writes
 * another controller's status (tests that stand in for one use `test/harness/status-writer.ts`).
 */
export interface ObjectWriter {
  /**
   * `O` is the caller's object as written: its fields beyond the envelope are the kind's schema,
   * which the API server validates (a non-generic parameter would refuse them as excess).
   */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see above
  create<K extends Kind, O extends KubeObjectLike>(
    kind: K,
    obj: O,
    opts?: WriteOptions,
  ): Promise<KindObject<K>>;
  /**
   * Server-side apply, by default without forcing field ownership. A
   * `metadata.resourceVersion` in `obj` is a precondition: a concurrent change makes the API
   * server answer 409.
   */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as for create
  apply<K extends Kind, O extends KubeObjectLike>(
    kind: K,
    obj: O,
    opts?: ApplyOptions,
  ): Promise<KindObject<K>>;
  patch<K extends Kind>(
    kind: K,
    ref: ObjectRef,
    patch: unknown,
    opts: WriteOptions & { readonly type: PatchType },
  ): Promise<KindObject<K>>;
  delete(kind: Kind, ref: ObjectRef, opts: DeleteOptions): Promise<void>;
}

/**
 * The one Kubernetes port of the product: an {@link ObjectReader} and an {@link ObjectWriter}
 * on one identity, every request with a deadline and counted by verb and code.
 */
export interface ObjectClient extends ObjectReader, ObjectWriter {
  readonly counter: RequestCounter;
  close(): void;
}

const PATCH_CONTENT_TYPES: Record<PatchType | "apply", string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export interface ObjectClientOptions extends Omit<TransportOptions, "counter"> {
  readonly counter?: RequestCounter;
}

function refOf(kind: Kind, obj: KubeObjectLike): ObjectRef {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") throw new Error(`${kind} without metadata.name`);
  const namespace = obj.metadata?.namespace;
  return namespace === undefined ? { name } : { name, namespace };
}

/** The object a create names (none for a create by `generateName`). */
function askedOf(obj: KubeObjectLike): ObjectRef | undefined {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") return undefined;
  const namespace = obj.metadata?.namespace;
  return namespace === undefined ? { name } : { name, namespace };
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s === "" ? "" : `?${s}`;
}

export function createObjectClient(kc: KubeAccess, opts: ObjectClientOptions = {}): ObjectClient {
  const counter = opts.counter ?? new RequestCounter();
  const t = new KubeTransport(kc, { ...opts, counter });
  const writeQuery = (o: WriteOptions | undefined, extra: Record<string, string> = {}) =>
    query({
      fieldManager: o?.fieldManager ?? "occ",
      dryRun: o?.dryRun === true ? "All" : undefined,
      ...extra,
    });

  const client: ObjectClient = {
    counter,
    async get<K extends Kind>(kind: K, ref: ObjectRef) {
      const body = await t.call({ verb: "get", method: "GET", path: objectPath(kind, ref) });
      return parseKindObject(kind, body, ref);
    },
    find: <K extends Kind>(kind: K, ref: ObjectRef) => ignoreNotFound(client.get(kind, ref)),
    async list<K extends Kind>(kind: K, o: ListOptions = {}) {
      const path =
        collectionPath(kind, o.namespace) +
        query({ labelSelector: o.labelSelector, fieldSelector: o.fieldSelector });
      const res = await t.call({ verb: "list", method: "GET", path });
      const items = isRecord(res) && Array.isArray(res["items"]) ? res["items"] : [];
      // List items come without apiVersion/kind: stamp the list's envelope on them (one an item
      // carries itself is kept, and checked) so every object is self-describing.
      const { apiVersion } = KINDS[kind];
      const asked = o.namespace !== undefined ? { namespace: o.namespace } : undefined;
      return items.map((item: unknown) =>
        parseKindObject(kind, isRecord(item) ? { apiVersion, kind, ...item } : item, asked),
      );
    },
    async create<K extends Kind>(kind: K, obj: KubeObjectLike, o?: WriteOptions) {
      const path = collectionPath(kind, obj.metadata?.namespace) + writeQuery(o);
      const body = await t.call({ verb: "create", method: "POST", path, body: obj });
      return parseKindObject(kind, body, askedOf(obj));
    },
    async apply<K extends Kind>(kind: K, obj: KubeObjectLike, o?: ApplyOptions) {
      const force = o?.force === true ? "true" : "false";
      const path = objectPath(kind, refOf(kind, obj)) + writeQuery(o, { force });
      const body = { apiVersion: KINDS[kind].apiVersion, kind, ...obj };
      const res = await t.call({
        verb: "patch",
        method: "PATCH",
        path,
        body,
        contentType: PATCH_CONTENT_TYPES.apply,
      });
      return parseKindObject(kind, res, refOf(kind, obj));
    },
    async patch<K extends Kind>(
      kind: K,
      ref: ObjectRef,
      patch: unknown,
      o: WriteOptions & { readonly type: PatchType },
    ) {
      const path = objectPath(kind, ref) + writeQuery(o);
      const res = await t.call({
        verb: "patch",
        method: "PATCH",
        path,
        body: patch,
        contentType: PATCH_CONTENT_TYPES[o.type],
      });
      return parseKindObject(kind, res, ref);
    },
    async delete(kind: Kind, ref: ObjectRef, o: DeleteOptions): Promise<void> {
      if (o.uid === "") throw new Error(`refusing to delete ${kind} without a UID precondition`);
      const body = {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions: {
          uid: o.uid,
          ...(o.resourceVersion !== undefined ? { resourceVersion: o.resourceVersion } : {}),
        },
        ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
      };
      await t.call({ verb: "delete", method: "DELETE", path: objectPath(kind, ref), body });
    },
    close: () => {
      t.close();
    },
  };
  return client;
}
