/**
 * Minimal, readonly shapes of the Kubernetes objects the domain reasons about, written to
 * match the JSON the API server returns (not the client library's classes).
 *
 * These are our own types so the decision layer never imports a Kubernetes client. Optional
 * fields also accept an explicit `undefined` so an adapter can map a client object field by
 * field under `exactOptionalPropertyTypes`. Fields the domain does not read are left out.
 */

/** A string-to-string map (labels, annotations, selectors). */
export type StringMap = Readonly<Record<string, string>>;

/** A Kubernetes RBAC subject (a RoleBinding's `subjects` entry as OCC names one). */
export interface RbacSubject {
  readonly kind: "User" | "ServiceAccount";
  readonly name: string;
  readonly namespace?: string;
}

/** RFC 3339 text in JSON; some clients hand out a `Date`. Only presence matters here. */
export type Timestamp = string | Date;

/** The subset of `metadata` the domain reads or writes. */
export interface ObjectMeta {
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly labels?: StringMap | undefined;
  readonly annotations?: StringMap | undefined;
  readonly deletionTimestamp?: Timestamp | undefined;
}

/** Anything with metadata — enough for ownership checks and deletion plans. */
export interface HasMetadata {
  readonly metadata?: ObjectMeta | undefined;
}

/**
 * A Kubernetes namespace (core/v1). `apiVersion`/`kind` are optional because list items
 * omit them; nothing in the domain dispatches on them.
 */
export interface K8sNamespace {
  readonly apiVersion?: "v1" | undefined;
  readonly kind?: "Namespace" | undefined;
  readonly metadata?: ObjectMeta | undefined;
  readonly status?: { readonly phase?: string | undefined } | undefined;
}

/** core/v1 ResourceQuota, spec limited to what OCC renders or must notice. */
export interface ResourceQuota {
  readonly apiVersion: "v1";
  readonly kind: "ResourceQuota";
  readonly metadata: ObjectMeta;
  readonly spec?:
    | {
        readonly hard?: StringMap | undefined;
        readonly scopes?: readonly string[] | undefined;
        readonly scopeSelector?: unknown;
      }
    | undefined;
}

/** One item of a LimitRange; quantities are strings as in JSON. */
export interface LimitRangeItem {
  readonly type: string;
  readonly default?: StringMap | undefined;
  readonly defaultRequest?: StringMap | undefined;
  readonly max?: StringMap | undefined;
  readonly min?: StringMap | undefined;
  readonly maxLimitRequestRatio?: StringMap | undefined;
}

/** core/v1 LimitRange. */
export interface LimitRange {
  readonly apiVersion: "v1";
  readonly kind: "LimitRange";
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly limits?: readonly LimitRangeItem[] | undefined } | undefined;
}

/** meta/v1 LabelSelectorRequirement. `operator` is In, NotIn, Exists or DoesNotExist. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

/** meta/v1 LabelSelector. `{}` selects everything; an absent selector is different. */
export interface LabelSelector {
  readonly matchLabels?: StringMap | undefined;
  readonly matchExpressions?: readonly LabelSelectorRequirement[] | undefined;
}

/** networking/v1 IPBlock. */
export interface IPBlock {
  readonly cidr: string;
  readonly except?: readonly string[] | undefined;
}

/** networking/v1 NetworkPolicyPeer. */
export interface NetworkPolicyPeer {
  readonly podSelector?: LabelSelector | undefined;
  readonly namespaceSelector?: LabelSelector | undefined;
  readonly ipBlock?: IPBlock | undefined;
}

/** networking/v1 NetworkPolicyPort. `protocol` defaults to TCP on the server. */
export interface NetworkPolicyPort {
  readonly protocol?: string | undefined;
  readonly port?: number | string | undefined;
  readonly endPort?: number | undefined;
}

/** networking/v1 NetworkPolicyIngressRule. */
export interface NetworkPolicyIngressRule {
  readonly from?: readonly NetworkPolicyPeer[] | undefined;
  readonly ports?: readonly NetworkPolicyPort[] | undefined;
}

/** networking/v1 NetworkPolicyEgressRule. */
export interface NetworkPolicyEgressRule {
  readonly to?: readonly NetworkPolicyPeer[] | undefined;
  readonly ports?: readonly NetworkPolicyPort[] | undefined;
}

/** networking/v1 NetworkPolicySpec. `policyTypes` holds `Ingress` and/or `Egress`. */
export interface NetworkPolicySpec {
  readonly podSelector?: LabelSelector | undefined;
  readonly policyTypes?: readonly string[] | undefined;
  readonly ingress?: readonly NetworkPolicyIngressRule[] | undefined;
  readonly egress?: readonly NetworkPolicyEgressRule[] | undefined;
}

/** networking/v1 NetworkPolicy. */
export interface NetworkPolicy {
  readonly apiVersion: "networking.k8s.io/v1";
  readonly kind: "NetworkPolicy";
  readonly metadata: ObjectMeta;
  readonly spec?: NetworkPolicySpec | undefined;
}

/** The kinds OCC owns inside a tenant namespace and reconciles in `owned-objects.ts`. */
export type OwnedObject = ResourceQuota | LimitRange | NetworkPolicy;

/** The `kind` values of {@link OwnedObject}. */
export type OwnedObjectKind = OwnedObject["kind"];

/** True when the object carries a deletion timestamp (it is terminating). */
export function isTerminating(object: HasMetadata): boolean {
  return object.metadata?.deletionTimestamp !== undefined;
}

/** True when a namespace reports phase `Active` and has no deletion timestamp. */
export function isActiveNamespace(namespace: K8sNamespace): boolean {
  return namespace.status?.phase === "Active" && !isTerminating(namespace);
}
