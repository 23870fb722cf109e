/**
 * The object type of every kind in the `KINDS` table, and the parser every body the API
 * server returns passes before a caller sees it: asking for a `Namespace` yields a
 * `K8sNamespace`, and no caller picks the type of what was read.
 *
 * The parser checks what OCC's decisions rely on, failing closed:
 * - the envelope: `kind` and `apiVersion` are exactly the asked ones (list items are stamped
 *   with them when they carry none, never overwritten);
 * - `metadata` is present with a non-empty `name` (only the create-only reviews may omit it),
 *   every field OCC reads has its type, labels and annotations are string maps, and when the
 *   caller named the object (`asked`) the name — and, for a namespaced kind, the namespace —
 *   are the asked ones;
 * - each kind's top-level sections (`kind-sections.ts`): `data` a string map, RBAC rules,
 *   role references and subjects, Event fields; `spec` and `status` objects otherwise.
 * The fields inside a spec are the API server's schema. A body that fails is a broken contract,
 * answered with a `KindObjectError` naming the kind and the object, never passed on.
 */
import type {
  DeploymentState,
  GrantRule,
  K8sNamespace,
  LimitRange,
  NetworkPolicy,
  ObjectMeta,
  PersistentVolumeClaim,
  ResourceQuota,
} from "../../../domain/index.js";
import {
  isRecord,
  isString,
  isStringMap,
  optional,
  sectionProblem,
  type BindingObject,
  type DataObject,
  type EventObject,
  type KubeObject,
  type RoleObject,
} from "./kind-sections.js";
import { KINDS, type Kind, type ObjectRef } from "./kinds.js";

/** A create-only question and the API server's answer in `status`. */
interface Review<Status> extends KubeObject {
  readonly status?: Status | undefined;
}

/** The kinds whose fields OCC reads, with their types; every other kind is a `KubeObject`. */
interface TypedKinds {
  readonly Namespace: K8sNamespace;
  readonly ResourceQuota: ResourceQuota;
  readonly LimitRange: LimitRange;
  readonly NetworkPolicy: NetworkPolicy;
  readonly ConfigMap: DataObject;
  readonly Secret: DataObject;
  readonly PersistentVolumeClaim: PersistentVolumeClaim;
  readonly Role: RoleObject;
  readonly ClusterRole: RoleObject;
  readonly RoleBinding: BindingObject;
  readonly ClusterRoleBinding: BindingObject;
  readonly Event: EventObject;
  readonly Deployment: DeploymentState & { readonly spec?: Readonly<Record<string, unknown>> };
  readonly SelfSubjectAccessReview: Review<{ readonly allowed?: boolean }>;
  readonly SelfSubjectRulesReview: Review<{ readonly resourceRules?: readonly GrantRule[] }>;
  readonly SelfSubjectReview: Review<{ readonly userInfo?: { readonly username?: string } }>;
}

/** Create-only questions: their answers need not carry metadata. */
type ReviewKind = "SelfSubjectAccessReview" | "SelfSubjectRulesReview" | "SelfSubjectReview";
const REVIEW_KINDS: ReadonlySet<Kind> = new Set<ReviewKind>([
  "SelfSubjectAccessReview",
  "SelfSubjectRulesReview",
  "SelfSubjectReview",
]);

/** What the parser guarantees of every stored object's envelope. */
interface StoredEnvelope<K extends Kind> {
  readonly apiVersion: (typeof KINDS)[K]["apiVersion"];
  readonly kind: K;
  readonly metadata: ObjectMeta & { readonly name: string };
}

/** The object type of `K`: its fields, and the envelope the parser checked. */
export type KindObject<K extends Kind> = (K extends keyof TypedKinds ? TypedKinds[K] : KubeObject) &
  (K extends ReviewKind ? unknown : StoredEnvelope<K>);

/** A body that is not the asked kind's object: the API answered outside its contract. */
export class KindObjectError extends Error {
  override readonly name = "KindObjectError";
  constructor(
    readonly kind: Kind,
    /** The object asked for (`namespace/name`, or `name`), or what the body named itself. */
    readonly object: string,
    readonly problem: string,
  ) {
    super(`the Kubernetes API answered for ${kind} ${object} with a body that ${problem}`);
  }
}

const META_STRINGS = ["namespace", "uid", "resourceVersion", "deletionTimestamp"] as const;

/** Why `v` is not object metadata (`null` when it is). */
function metadataProblem(v: unknown, nameRequired: boolean): string | null {
  if (!isRecord(v)) return "has no metadata";
  const name = v["name"];
  if (nameRequired ? typeof name !== "string" || name === "" : !optional(name, isString)) {
    return "has no metadata.name";
  }
  const bad = META_STRINGS.find((k) => !optional(v[k], isString));
  if (bad !== undefined) return `has a metadata.${bad} that is not a string`;
  if (!optional(v["labels"], isStringMap)) return "has labels that are not a string map";
  if (!optional(v["annotations"], isStringMap)) return "has annotations that are not a string map";
  return null;
}

/** Why `body` is not `asked` of `kind` (`""` when it is). */
function problemOf(kind: Kind, body: unknown, asked: Partial<ObjectRef> | undefined): string {
  if (!isRecord(body)) return "is not an object";
  if (body["kind"] !== kind) return `is of kind ${JSON.stringify(body["kind"])}`;
  const { apiVersion, namespaced } = KINDS[kind];
  if (body["apiVersion"] !== apiVersion) {
    return `has apiVersion ${JSON.stringify(body["apiVersion"])}, not ${apiVersion}`;
  }
  const review = REVIEW_KINDS.has(kind);
  const metadata = body["metadata"];
  if (!(review && metadata === undefined)) {
    const problem = metadataProblem(metadata, !review);
    if (problem !== null) return problem;
  }
  const meta = isRecord(metadata) ? metadata : {};
  if (asked?.name !== undefined && meta["name"] !== asked.name) {
    return `names ${JSON.stringify(meta["name"])}`;
  }
  if (namespaced && asked?.namespace !== undefined && meta["namespace"] !== asked.namespace) {
    return `is in namespace ${JSON.stringify(meta["namespace"])}`;
  }
  return sectionProblem(kind, body);
}

function describe(body: unknown, asked: Partial<ObjectRef> | undefined): string {
  const meta = isRecord(body) && isRecord(body["metadata"]) ? body["metadata"] : {};
  const name = asked?.name ?? meta["name"];
  const namespace = asked?.namespace ?? meta["namespace"];
  const n = typeof name === "string" ? name : "(unnamed)";
  return typeof namespace === "string" && namespace !== "" ? `${namespace}/${n}` : n;
}

/** True when `body` is an object of `kind` (the asked one, when given), as described above. */
export function isKindObject<K extends Kind>(
  kind: K,
  body: unknown,
  asked?: Partial<ObjectRef>,
): body is KindObject<K> {
  return problemOf(kind, body, asked) === "";
}

/**
 * `body` as an object of `kind`; when `asked` is given, also exactly that object. Throws a
 * `KindObjectError` naming the kind and the object otherwise.
 */
export function parseKindObject<K extends Kind>(
  kind: K,
  body: unknown,
  asked?: Partial<ObjectRef>,
): KindObject<K> {
  const read = withoutNullFields(body);
  if (isKindObject(kind, read, asked)) return read;
  throw new KindObjectError(kind, describe(read, asked), problemOf(kind, read, asked));
}

/**
 * The API server writes an empty optional field as `null` (a Role without rules, an Event's
 * `firstTimestamp` from a modern recorder): `null` at the top level means absent, so it is
 * dropped before the sections are checked and the object carries no `null` a reader must expect.
 */
function withoutNullFields(body: unknown): unknown {
  if (!isRecord(body) || !Object.values(body).includes(null)) return body;
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}

export type {
  BindingObject,
  BindingSubject,
  DataObject,
  EventObject,
  KubeObject,
  RoleObject,
} from "./kind-sections.js";
