import type { KubeAccess } from "./kubeconfig.js";
import { ignoreNotFound } from "./errors.js";
import { KINDS, collectionPath, objectPath, type Kind, type ObjectRef } from "./kinds.js";
import { RequestCounter } from "./request-counter.js";
import { KubeTransport, type TransportOptions } from "./transport.js";

/** The least every object has: the client reads nothing else. */
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
 * The one Kubernetes port of the product: get, list, create, apply, patch and delete over any
 * kind of the `KINDS` table. Objects are plain JSON exactly as the API server returns them.
 * Reads are retried on transient failures within a small budget; writes are sent exactly
 * once; every request has a deadline and is counted by verb and code.
 */
export interface ObjectClient {
  readonly counter: RequestCounter;
  /** Throws `KubeApiError` with category `not-found` when absent. */
  get<T extends KubeObjectLike>(kind: Kind, ref: ObjectRef): Promise<T>;
  /** `get`, or `undefined` when absent. */
  find<T extends KubeObjectLike>(kind: Kind, ref: ObjectRef): Promise<T | undefined>;
  list<T extends KubeObjectLike>(kind: Kind, opts?: ListOptions): Promise<T[]>;
  create<T extends KubeObjectLike>(kind: Kind, obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Server-side apply, by default without forcing field ownership. A
   * `metadata.resourceVersion` in `obj` is a precondition: a concurrent change makes the API
   * server answer 409.
   */
  apply<T extends KubeObjectLike>(kind: Kind, obj: T, opts?: ApplyOptions): Promise<T>;
  patch<T extends KubeObjectLike>(
    kind: Kind,
    ref: ObjectRef,
    patch: unknown,
    opts: WriteOptions & { readonly type: PatchType },
  ): Promise<T>;
  /** Writes the status subresource (tests mark Deployments available, as envtest does). */
  patchStatus<T extends KubeObjectLike>(kind: Kind, ref: ObjectRef, patch: unknown): Promise<T>;
  delete(kind: Kind, ref: ObjectRef, opts: DeleteOptions): Promise<void>;
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
    async get<T extends KubeObjectLike>(kind: Kind, ref: ObjectRef): Promise<T> {
      return (await t.call({ verb: "get", method: "GET", path: objectPath(kind, ref) })) as T;
    },
    find: <T extends KubeObjectLike>(kind: Kind, ref: ObjectRef) =>
      ignoreNotFound(client.get<T>(kind, ref)),
    async list<T extends KubeObjectLike>(kind: Kind, o: ListOptions = {}): Promise<T[]> {
      const path =
        collectionPath(kind, o.namespace) +
        query({ labelSelector: o.labelSelector, fieldSelector: o.fieldSelector });
      const res = (await t.call({ verb: "list", method: "GET", path })) as { items?: T[] };
      // List items come without apiVersion/kind; stamp them so every object is self-describing.
      const { apiVersion } = KINDS[kind];
      return (res.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
    },
    async create<T extends KubeObjectLike>(kind: Kind, obj: T, o?: WriteOptions): Promise<T> {
      const path = collectionPath(kind, obj.metadata?.namespace) + writeQuery(o);
      return (await t.call({ verb: "create", method: "POST", path, body: obj })) as T;
    },
    async apply<T extends KubeObjectLike>(kind: Kind, obj: T, o?: ApplyOptions): Promise<T> {
      const force = o?.force === true ? "true" : "false";
      const path = objectPath(kind, refOf(kind, obj)) + writeQuery(o, { force });
      const body = { apiVersion: KINDS[kind].apiVersion, kind, ...obj };
      return (await t.call({
        verb: "patch",
        method: "PATCH",
        path,
        body,
        contentType: PATCH_CONTENT_TYPES.apply,
      })) as T;
    },
    async patch<T extends KubeObjectLike>(
      kind: Kind,
      ref: ObjectRef,
      patch: unknown,
      o: WriteOptions & { readonly type: PatchType },
    ): Promise<T> {
      const path = objectPath(kind, ref) + writeQuery(o);
      return (await t.call({
        verb: "patch",
        method: "PATCH",
        path,
        body: patch,
        contentType: PATCH_CONTENT_TYPES[o.type],
      })) as T;
    },
    async patchStatus<T extends KubeObjectLike>(
      kind: Kind,
      ref: ObjectRef,
      patch: unknown,
    ): Promise<T> {
      const path = `${objectPath(kind, ref)}/status${writeQuery(undefined)}`;
      return (await t.call({
        verb: "patch",
        method: "PATCH",
        path,
        body: patch,
        contentType: PATCH_CONTENT_TYPES.merge,
      })) as T;
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
