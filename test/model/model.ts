/**
 * The model of the R5 test (docs/reliability.md): what the test did to the stack and, from the
 * spec, what every platform Namespace must have settled to once the stack is quiet.
 */
import type { FaultKinds } from "./totals.js";
import type { Stack } from "../harness/stack.js";

/** How a platform Namespace may have settled: its status, and a reason code where one is fixed. */
export type Settled =
  | "ready"
  | "degraded"
  | "degraded:KUBERNETES_NAMESPACE_MISSING"
  | "failed"
  | "failed:KUBERNETES_OWNERSHIP_CONFLICT"
  | "pending:KUBERNETES_PERMISSION_PENDING"
  | "failed:KUBERNETES_API_UNAVAILABLE"
  | "failed:KUBERNETES_API_TIMEOUT"
  | "failed:KUBERNETES_API_REJECTED"
  | "gone"
  | "deleting:failed";

/**
 * What a kube-apiserver restart may leave of a first placement or a teardown in flight, as the
 * spec stands: each retry spends one of the 5 attempts (control-plane.md §5: "retryable on the
 * last attempt → failed"), and a just-restarted server answers 403 until its RBAC caches are
 * filled, which before verification is permanent (placement.md §7). docs/reliability.md.
 */
export const OUTAGE_OUTCOMES: readonly Settled[] = [
  "failed:KUBERNETES_API_UNAVAILABLE",
  "failed:KUBERNETES_API_TIMEOUT",
  "failed:KUBERNETES_API_REJECTED",
  "deleting:failed",
];

export type Preparation =
  "ok" | "no-pod-security" | "no-lifecycle" | "foreign-marker" | "allow-all";

export interface Tenant {
  readonly id: string;
  readonly mode: "managed" | "external";
  /** The Kubernetes namespace it is (or will be) bound to. */
  readonly namespace: string;
  /** External only: how the operator prepared it, and whether the worker's RoleBinding exists. */
  readonly preparation: Preparation;
  granted: boolean;
  /** What the spec allows it to have settled to. */
  expect: readonly Settled[];
  /** The tenant's namespace is deleted out of band (it must never be recreated by itself). */
  namespaceDeleted: boolean;
  /** OCC deleted the tenant (DELETE accepted). */
  deleted: boolean;
  /** The Kubernetes namespace's labels and annotations as the operator last left them. */
  operatorLabels: Record<string, string>;
  operatorAnnotations: Record<string, string>;
  /** An operator change that OCC may not repair touched the namespace. */
  tampered: boolean;
  /** A kube-apiserver restart met its first placement or its teardown ({@link OUTAGE_OUTCOMES}). */
  outage: boolean;
  readonly configurations: string[];
  readonly secrets: string[];
  readonly agents: { readonly id: string; readonly configurationId: string; deleted: boolean }[];
  /** Objects of the operator in the tenant's namespace: they must stay exactly as written. */
  readonly foreign: { kind: "NetworkPolicy" | "RoleBinding"; name: string; rv: string }[];
}

/** One API mutation the test made that the API accepted: it must have an audit event. */
export interface Mutation {
  readonly action: string;
  readonly resourceId: string;
}

/** What the database held when the sequence's backup was taken (test/model/restore.ts). */
export interface Backup {
  readonly file: string;
  readonly tenants: readonly Pick<Tenant, "id" | "configurations" | "secrets" | "agents">[];
  readonly mutations: number;
}

/** A namespace of a tenant created after the backup, found when the backup was restored. */
export interface Orphan {
  readonly id: string;
  readonly namespace: string;
  readonly uid: string;
  /** Its labels and annotations then: OCC must never modify them. */
  readonly metadata: string;
  /** It carried the tenant's markers, so `GET /namespaces/orphans` must report it. */
  readonly marked: boolean;
}

export interface Model {
  readonly tenants: Tenant[];
  readonly mutations: Mutation[];
  backup?: Backup;
  readonly orphans: Orphan[];
  /** The faults injected in this sequence, by kind (`kill-worker`, …). */
  readonly faultKinds: FaultKinds;
  commands: number;
  /** Processes that exited by themselves before this sequence (not its violations). */
  readonly exitsBefore: number;
}

export interface Real {
  readonly stack: Stack;
}

export const newModel = (exitsBefore: number): Model => ({
  tenants: [],
  mutations: [],
  orphans: [],
  faultKinds: {},
  commands: 0,
  exitsBefore,
});

/** Tenants a command may act on. */
export const live = (m: Model): Tenant[] => m.tenants.filter((t) => !t.deleted);

/** Picks one of `list` by a generated index. */
export function pick<T>(list: readonly T[], index: number): T | undefined {
  return list.length === 0 ? undefined : list[index % list.length];
}

/** What the spec expects once `t` was created and nothing else happened to it. */
export function initialExpectation(t: Pick<Tenant, "mode" | "preparation" | "granted">): Settled[] {
  if (t.mode === "managed") return ["ready"];
  if (t.preparation === "ok") {
    return t.granted ? ["ready"] : ["pending:KUBERNETES_PERMISSION_PENDING"];
  }
  // A foreign policy is found only once the namespace may be read (placement.md §4.2 step 6).
  if (t.preparation === "allow-all" && !t.granted) {
    return ["failed:KUBERNETES_OWNERSHIP_CONFLICT", "pending:KUBERNETES_PERMISSION_PENDING"];
  }
  return ["failed:KUBERNETES_OWNERSHIP_CONFLICT"];
}

/** Whether a settled row `status`/`code` matches one of `expect`. */
export function matches(
  expect: readonly Settled[],
  row: { status: string; code: string | null; deletedAt: unknown },
): boolean {
  return expect.some((e) => {
    if (e === "gone") return row.status === "deleting" && row.deletedAt !== null;
    if (e === "deleting:failed") {
      return row.status === "deleting" && row.deletedAt === null && row.code !== null;
    }
    const [status, code] = e.split(":");
    const s = status === "pending" ? "provisioning" : status;
    return row.status === s && (code === undefined || row.code === code);
  });
}
