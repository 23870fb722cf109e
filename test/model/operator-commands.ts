/**
 * The model's operator commands (changes made beside OCC, through the API server) and faults.
 * Expectations follow lifecycle.md §3: OCC repairs what it owns and reports, never repairs,
 * what the operator owns. Where the spec leaves the outcome open the model accepts each reading
 * (docs/reliability.md lists them); the invariants stay strict whatever the status.
 */
import type { AsyncCommand } from "fast-check";
import { ANNOTATIONS, LABELS } from "../../src/domain/index.js";
import { live, pick, type Model, type Real, type Settled, type Tenant } from "./model.js";
import { foreignPolicy, grant, revoke, untilReady, untilSettled } from "./operator.js";
import { restoreBackup } from "./restore.js";
import { countFault } from "./totals.js";

type Cmd = AsyncCommand<Model, Real>;
const any = (m: Readonly<Model>) => live(m).length > 0;

/** A live tenant that is expected ready, once it is (the operator acts on a placed tenant). */
async function readyTenant(m: Model, r: Real, index: number): Promise<Tenant | undefined> {
  const t = pick(live(m), index);
  if (t === undefined || t.tampered || t.namespaceDeleted || !t.expect.includes("ready")) {
    return undefined;
  }
  return (await untilReady(r.stack, t)) ? t : undefined;
}

/** An operator command on a live tenant expected ready: `act` runs once it is (readyTenant). */
abstract class OnReadyTenant implements Cmd {
  constructor(readonly index: number) {}
  check = any;
  async run(m: Model, r: Real) {
    const t = await readyTenant(m, r, this.index);
    if (t !== undefined) await this.act(t, r);
  }
  protected abstract act(t: Tenant, r: Real): Promise<void>;
}

export type Tamper = "foreign-label" | "remove-label" | "lifecycle" | "relax-pod-security";

/** Changes the tenant namespace's markers as an operator (or an attacker) might. */
export class TamperMarkers extends OnReadyTenant {
  constructor(
    index: number,
    readonly how: Tamper,
  ) {
    super(index);
  }
  protected async act(t: Tenant, r: Real) {
    const patch: {
      labels?: Record<string, string | null>;
      annotations?: Record<string, string | null>;
    } =
      this.how === "foreign-label"
        ? { labels: { [LABELS.gatewayNamespace]: "ns_foreign-tenant" } }
        : this.how === "remove-label"
          ? { labels: { [LABELS.namespace]: null } }
          : this.how === "lifecycle"
            ? {
                annotations: {
                  [ANNOTATIONS.lifecycle]: t.mode === "managed" ? "external" : "preprovisioned",
                },
              }
            : { labels: { [LABELS.podSecurityEnforce]: "privileged" } };
    await r.stack.admin.patch(
      "Namespace",
      { name: t.namespace },
      { metadata: patch },
      { type: "merge" },
    );
    if (t.mode === "external") {
      // Reported, never repaired: the operator's value stays (lifecycle.md §3).
      for (const [k, v] of Object.entries(patch.labels ?? {})) t.operatorLabels[k] = v ?? "";
      for (const [k, v] of Object.entries(patch.annotations ?? {}))
        t.operatorAnnotations[k] = v ?? "";
      t.expect = ["degraded"];
      t.tampered = true;
    } else if (this.how === "relax-pod-security") {
      t.expect = ["ready"]; // repaired: the managed namespace's Pod Security triple
    } else {
      // Open in the spec: lifecycle.md §3 repairs a managed namespace's tenant labels, while
      // placement.md §3/§4.1 refuse a namespace whose markers or lifecycle no longer match.
      t.expect = ["ready", "degraded"];
      t.tampered = true;
    }
  }
  override toString = () => `tamper(#${this.index}, ${this.how})`;
}

/** The operator adds an allow-all NetworkPolicy to the tenant's namespace. */
export class AddForeignPolicy extends OnReadyTenant {
  protected async act(t: Tenant, r: Real) {
    const name = `foreign-${t.foreign.length}`;
    t.foreign.push({
      kind: "NetworkPolicy",
      name,
      rv: await foreignPolicy(r.stack, t.namespace, name),
    });
    // External: reported (lifecycle.md §3). Managed: the spec names no outcome.
    t.expect = t.mode === "external" ? ["degraded"] : ["ready", "degraded"];
    t.tampered = true;
  }
  override toString = () => `addForeignNetworkPolicy(#${this.index})`;
}

export type Owned = "default-deny" | "allow-dns" | "openclaw-quota" | "openclaw-limits";
const KIND: Record<Owned, "NetworkPolicy" | "ResourceQuota" | "LimitRange"> = {
  "default-deny": "NetworkPolicy",
  "allow-dns": "NetworkPolicy",
  "openclaw-quota": "ResourceQuota",
  "openclaw-limits": "LimitRange",
};

/** Deletes one object OCC owns: repaired, the tenant stays ready (lifecycle.md §3). */
export class DeleteOwned extends OnReadyTenant {
  constructor(
    index: number,
    readonly which: Owned,
  ) {
    super(index);
  }
  protected async act(t: Tenant, r: Real) {
    const ref = { name: this.which, namespace: t.namespace };
    const obj = await r.stack.admin.find(KIND[this.which], ref);
    if (obj !== undefined)
      await r.stack.admin.delete(KIND[this.which], ref, { uid: obj.metadata.uid ?? "" });
  }
  override toString = () => `deleteOwned(#${this.index}, ${this.which})`;
}

/** Deletes the tenant's Kubernetes namespace out of band: degraded, never recreated. */
export class DeleteNamespaceOutOfBand extends OnReadyTenant {
  protected async act(t: Tenant, r: Real) {
    const ns = await r.stack.admin.find("Namespace", {
      name: t.namespace,
    });
    if (ns === undefined) return;
    await r.stack.admin.delete("Namespace", { name: t.namespace }, { uid: ns.metadata.uid ?? "" });
    t.namespaceDeleted = true;
    t.expect = ["degraded:KUBERNETES_NAMESPACE_MISSING"];
  }
  override toString = () => `deleteNamespaceOutOfBand(#${this.index})`;
}

/** The operator grants or revokes the worker's RoleBinding in an external tenant's namespace. */
export class Grants implements Cmd {
  constructor(
    readonly index: number,
    readonly to: "grant" | "revoke",
  ) {}
  check = any;
  async run(m: Model, r: Real) {
    const t = pick(
      live(m).filter((x) => x.mode === "external" && !x.namespaceDeleted),
      this.index,
    );
    if (t === undefined || t.granted === (this.to === "grant")) return;
    if (this.to === "grant") {
      await grant(r.stack, t.namespace);
      t.granted = true;
      const was = t.expect;
      // Pending on permissions → ready; a refusal is never adopted later by itself (§4).
      const next: Settled[] = was.includes("pending:KUBERNETES_PERMISSION_PENDING")
        ? t.preparation === "ok"
          ? ["ready"]
          : ["failed:KUBERNETES_OWNERSHIP_CONFLICT"]
        : [...was];
      t.expect = t.tampered ? [...new Set([...was, ...next, "ready" as const])] : next;
      return;
    }
    if (t.expect.includes("ready") && !(await untilReady(r.stack, t))) return;
    // Revoked once the first pass landed, so that the expected reason is not a race.
    await untilSettled(r.stack, t);
    await revoke(r.stack, t.namespace);
    t.granted = false;
    if (t.expect.includes("ready")) {
      // lifecycle.md §2 says failed ("authorization revoked"), placement.md §4.2 step 5 says a
      // 403 after verification is pending: either, or degraded.
      t.expect = ["failed", "degraded", "pending:KUBERNETES_PERMISSION_PENDING"];
      t.tampered = true;
    }
  }
  toString = () => `${this.to}(#${this.index})`;
}

/** Tenants whose first placement or teardown is still open when kube-apiserver restarts. */
async function markInFlight(m: Model, r: Real): Promise<void> {
  const rows = await r.stack.query<{ id: string; status: string; deleted_at: Date | null }>(
    "SELECT id, status, deleted_at FROM namespaces WHERE id = ANY($1::text[])",
    [m.tenants.map((t) => t.id)],
  );
  for (const row of rows) {
    const open =
      row.status === "provisioning" || (row.status === "deleting" && row.deleted_at === null);
    const t = m.tenants.find((x) => x.id === row.id);
    if (open && t !== undefined) t.outage = true;
  }
}

export type Fault =
  | "kill-worker"
  | "kill-api"
  | "restart-postgres"
  | "failover-postgres"
  | "restore-backup"
  | "restart-apiserver";

export class InjectFault implements Cmd {
  constructor(
    readonly fault: Fault,
    readonly index: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    countFault(m.faultKinds, this.fault);
    if (this.fault === "kill-worker") await r.stack.killAndRestart("worker", this.index);
    else if (this.fault === "kill-api") await r.stack.killAndRestart("api", this.index);
    else if (this.fault === "restart-postgres") await r.stack.restartPostgres();
    else if (this.fault === "failover-postgres") await r.stack.failoverPostgres();
    else if (this.fault === "restore-backup") await restoreBackup(m, r);
    else {
      await markInFlight(m, r);
      await r.stack.restartApiServer();
    }
  }
  toString = () =>
    this.fault.startsWith("kill") ? `${this.fault}(${this.index % 2})` : `${this.fault}()`;
}
