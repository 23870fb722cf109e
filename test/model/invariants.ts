/**
 * The invariants of spec/quality.md §3, checked against the model and against what the API
 * server and the database hold. Each returns the violations it found, as sentences.
 */
import { ANNOTATIONS, LABELS, MARKER_VALUES } from "../../src/domain/index.js";
import type { Stack } from "../harness/stack.js";
import { matches, OUTAGE_OUTCOMES, type Model, type Tenant } from "./model.js";
import { call, RESTRICTED, row as namespaceRow } from "./operator.js";
import { markers } from "./restore.js";

interface Meta {
  metadata: {
    name: string;
    uid?: string | undefined;
    resourceVersion?: string | undefined;
    deletionTimestamp?: unknown;
    labels?: Readonly<Record<string, string>> | undefined;
    annotations?: Readonly<Record<string, string>> | undefined;
  };
}

const OWNED = [
  ["NetworkPolicy", "default-deny"],
  ["NetworkPolicy", "allow-dns"],
  ["ResourceQuota", "openclaw-quota"],
  ["LimitRange", "openclaw-limits"],
] as const;

export async function violations(stack: Stack, m: Model): Promise<string[]> {
  const found: string[] = stack.unexpectedExits.slice(m.exitsBefore);
  const all = await stack.admin.list("Namespace");
  const claims = new Map<string, string[]>();
  for (const ns of all) {
    const id = ns.metadata.labels?.[LABELS.namespace];
    if (id !== undefined) claims.set(id, [...(claims.get(id) ?? []), ns.metadata.name]);
  }
  for (const [id, names] of claims) {
    if (names.length > 1)
      found.push(`${id} is claimed by ${names.length} namespaces: ${names.join(", ")}`);
  }
  const doubly = await stack.query<{ kubernetes_namespace: string }>(
    "SELECT kubernetes_namespace FROM namespaces WHERE deleted_at IS NULL AND kubernetes_namespace IS NOT NULL GROUP BY 1 HAVING count(*) > 1",
  );
  for (const d of doubly) found.push(`${d.kubernetes_namespace} is bound to more than one tenant`);
  found.push(...(await queue(stack)));
  found.push(...(await orphans(stack, m, all)));
  for (const t of m.tenants)
    found.push(
      ...(await tenant(stack, t, all)).map((v) => `${t.id} (${t.mode} ${t.namespace}): ${v}`),
    );
  for (const mut of m.mutations) {
    const audited = await stack.query(
      "SELECT 1 FROM audit_events WHERE kind = 'mutation' AND outcome = 'success' AND resource_id = $1",
      [mut.resourceId],
    );
    if (audited.length === 0) found.push(`${mut.action} ${mut.resourceId} has no audit event`);
  }
  return found;
}

/**
 * After a restore (test/model/restore.ts): each orphan still exists with the same UID and
 * markers, no tenant is bound to it, and `GET /namespaces/orphans` reports the marked ones.
 */
async function orphans(stack: Stack, m: Model, all: readonly Meta[]): Promise<string[]> {
  if (m.orphans.length === 0) return [];
  const out: string[] = [];
  const res = await call(stack, 0, "GET", "/namespaces/orphans");
  const report = (res.body.data as { items?: { kubernetesNamespace: string }[] } | undefined)
    ?.items;
  if (res.status !== 200 || report === undefined)
    out.push(`GET /namespaces/orphans answered ${res.status}`);
  const bound = await stack.query<{ kubernetes_namespace: string }>(
    "SELECT kubernetes_namespace FROM namespaces WHERE deleted_at IS NULL AND kubernetes_namespace = ANY($1::text[])",
    [m.orphans.map((o) => o.namespace)],
  );
  for (const o of m.orphans) {
    const what = `orphan ${o.namespace} (of ${o.id}, created after the backup)`;
    const ns = all.find((n) => n.metadata.name === o.namespace);
    if (ns === undefined || ns.metadata.uid !== o.uid) out.push(`${what} was deleted`);
    else if (ns.metadata.deletionTimestamp !== undefined) out.push(`${what} is being deleted`);
    else if (markers(ns) !== o.metadata) out.push(`${what} was modified`);
    if (bound.some((b) => b.kubernetes_namespace === o.namespace)) out.push(`${what} was adopted`);
    if (
      o.marked &&
      report !== undefined &&
      !report.some((i) => i.kubernetesNamespace === o.namespace)
    )
      out.push(`${what} is not reported by GET /namespaces/orphans`);
  }
  return out;
}

async function queue(stack: Stack): Promise<string[]> {
  const stuck = await stack.query<{ subject: string; state: string }>(
    `SELECT subject, state FROM work_items
      WHERE (state = 'claimed' AND lease_expires_at < now() - make_interval(secs => $1))
         OR (state = 'queued' AND available_at < now() - interval '20 seconds')`,
    [stack.leaseSeconds * 2],
  );
  return stuck.map((s) => `work item of ${s.subject} is stuck ${s.state}`);
}

async function tenant(stack: Stack, t: Tenant, all: readonly Meta[]): Promise<string[]> {
  const out: string[] = [];
  const row = await namespaceRow(stack, t.id);
  if (row === undefined) return ["no row"];
  const settled = { status: row.status, code: row.status_code, deletedAt: row.deleted_at };
  const expect = t.outage ? [...t.expect, ...OUTAGE_OUTCOMES] : t.expect;
  if (!matches(expect, settled)) {
    out.push(
      `settled ${row.status}${row.status_code === null ? "" : `:${row.status_code}`}, expected ${expect.join(" | ")}`,
    );
  }
  const open =
    row.deleted_at === null &&
    (row.status === "provisioning" || (row.status === "deleting" && row.status_code === null));
  if (open) {
    const items = await stack.query(
      "SELECT 1 FROM work_items WHERE subject LIKE '%' || $1 || '%' AND state IN ('queued', 'claimed')",
      [t.id],
    );
    if (items.length === 0) out.push(`${row.status} with no queued work (lost)`);
  }
  if (["ready", "degraded", "failed"].includes(row.status)) {
    const audited = await stack.query(
      "SELECT 1 FROM audit_events WHERE kind = 'lifecycle' AND resource_id = $1 AND details->>'to' = $2",
      [t.id, row.status],
    );
    if (audited.length === 0) out.push(`its transition to ${row.status} has no audit event`);
  }
  const ns = all.find((n) => n.metadata.name === t.namespace);
  if (t.namespaceDeleted) {
    if (ns !== undefined && ns.metadata.deletionTimestamp === undefined)
      out.push("its deleted namespace was recreated");
    return out;
  }
  if (t.mode === "external") {
    // Bound once it was ready (a pending selection is recorded before the binding patch).
    out.push(...external(t, ns, await everReady(stack, t.id)));
  }
  if (ns === undefined) {
    // A managed first placement that an outage ended failed may never have created it
    // (docs/reliability.md, "A kube-apiserver restart during a first placement").
    const unplaced =
      row.status === "deleting" ||
      row.status === "provisioning" ||
      (t.outage && row.status === "failed" && !(await everReady(stack, t.id)));
    if (t.mode === "external" || !unplaced) {
      out.push(`its namespace is missing (settled ${row.status}:${row.status_code ?? "-"})`);
    }
    return out;
  }
  if (row.status === "ready") {
    if (
      ns.metadata.labels?.[LABELS.namespace] !== t.id ||
      ns.metadata.annotations?.[ANNOTATIONS.namespaceId] !== t.id
    ) {
      out.push("ready without both tenant markers");
    }
    if (
      t.mode === "managed" &&
      !Object.entries(RESTRICTED).every(([k, v]) => ns.metadata.labels?.[k] === v)
    ) {
      out.push("ready managed namespace without restricted Pod Security");
    }
    for (const [kind, name] of OWNED) {
      const obj = await stack.admin.find(kind, { name, namespace: t.namespace });
      if (obj === undefined) out.push(`ready without its ${kind} ${name} (drift not repaired)`);
      else if (!owned(obj, t.id)) out.push(`${kind} ${name} lacks the ownership markers`);
    }
    if (!t.tampered) out.push(...(await resources(stack, t)));
  }
  if (row.status === "deleting" && row.deleted_at !== null && t.mode === "external") {
    for (const [kind, name] of OWNED) {
      if ((await stack.admin.find(kind, { name, namespace: t.namespace })) !== undefined) {
        out.push(`deleted external tenant left its ${kind} ${name}`);
      }
    }
  }
  for (const f of t.foreign) {
    if (f.kind === "RoleBinding" && !t.granted) continue;
    const obj = await stack.admin.find(f.kind, { name: f.name, namespace: t.namespace });
    if (obj === undefined) out.push(`the operator's ${f.kind} ${f.name} was deleted`);
    else if (f.rv !== "" && obj.metadata.resourceVersion !== f.rv)
      out.push(`the operator's ${f.kind} ${f.name} was modified`);
  }
  return out;
}

/** Whether the tenant's row ever became ready (its lifecycle audit event says so). */
async function everReady(stack: Stack, id: string): Promise<boolean> {
  const rows = await stack.query(
    "SELECT 1 FROM audit_events WHERE kind = 'lifecycle' AND resource_id = $1 AND details->>'to' = 'ready'",
    [id],
  );
  return rows.length > 0;
}

/** An external namespace: never deleted, the operator's metadata as they left it. */
function external(t: Tenant, ns: Meta | undefined, bound: boolean): string[] {
  if (ns === undefined) return ["the external namespace was deleted"];
  const out: string[] = [];
  const check = (what: string, want: Record<string, string>, have: Record<string, string> = {}) => {
    for (const [k, v] of Object.entries(want)) {
      if (v === "" ? k in have : have[k] !== v)
        out.push(`${what} ${k} is ${have[k] ?? "absent"}, the operator left ${v || "absent"}`);
    }
  };
  check("label", t.operatorLabels, ns.metadata.labels);
  check("annotation", t.operatorAnnotations, ns.metadata.annotations);
  if (
    bound &&
    t.operatorLabels[LABELS.namespace] !== "" &&
    ns.metadata.labels?.[LABELS.namespace] !== t.id
  ) {
    out.push("the bound external namespace lost its tenant label");
  }
  return out;
}

function owned(obj: Meta, id: string): boolean {
  return (
    obj.metadata.labels?.[LABELS.managedBy] === MARKER_VALUES.managedBy &&
    obj.metadata.labels[LABELS.namespace] === id &&
    obj.metadata.annotations?.[ANNOTATIONS.namespaceId] === id
  );
}

/** One ConfigMap per Configuration and one Secret per Secret: no duplicates, none lost. */
async function resources(stack: Stack, t: Tenant): Promise<string[]> {
  const out: string[] = [];
  const selector = { labelSelector: `${LABELS.namespace}=${t.id}` };
  const cms = await stack.admin.list("ConfigMap", { namespace: t.namespace, ...selector });
  if (cms.length !== t.configurations.length) {
    out.push(`${cms.length} ConfigMaps for ${t.configurations.length} Configurations`);
  }
  const secrets = await stack.admin.list("Secret", { namespace: t.namespace, ...selector });
  if (secrets.length !== t.secrets.length)
    out.push(`${secrets.length} Secrets for ${t.secrets.length} Secrets`);
  return out;
}
