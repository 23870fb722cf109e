/**
 * Agent records (control-plane.md §1, drivers.md §4): one row per Agent of a Namespace, the
 * name unique in the Namespace. `status` is `active` until the Agent is deleted, then
 * `deleting` until the worker has torn its Kubernetes objects down — only then is the row
 * (and, by cascade, its revisions) deleted, so a Namespace stays non-empty while anything of
 * the Agent may remain in the cluster.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { AgentId } from "../domain/workloads/ids.js";
import { isAgentId, isRevisionId } from "../domain/workloads/ids.js";
import {
  branded,
  defineRow,
  defineTable,
  integer,
  nullable,
  oneOf,
  text,
  timestamp,
  namespaceIdColumn,
} from "./columns.js";
import type { RowOf } from "./columns.js";
import type { Queryable } from "./db.js";
import { rowById } from "./lookup.js";
import { firstIds, namespaceRows } from "./resource-paging.js";
import {
  AGENT_STATUSES,
  EXECUTION_MODES,
  type ExecutionMode,
} from "../domain/workloads/vocabulary.js";

export const agentsTable = defineTable("agents", {
  id: branded(isAgentId, "an Agent ID"),
  namespaceId: namespaceIdColumn,
  name: text,
  configurationId: text,
  executionMode: oneOf(EXECUTION_MODES),
  serviceAccountId: nullable(text),
  status: oneOf(AGENT_STATUSES),
  currentRevisionId: nullable(branded(isRevisionId, "an AgentRevision ID")),
  revisionCount: integer,
  statusCode: nullable(text),
  statusMessage: nullable(text),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export type AgentRecord = RowOf<typeof agentsTable.columns>;

const COLUMNS = agentsTable.select();

/** A Namespace's Agents by ID, and their pages. */
export const agentRows = namespaceRows(agentsTable);

export interface NewAgent {
  readonly id: AgentId;
  readonly namespaceId: NamespaceId;
  readonly name: string;
  readonly configurationId: string;
  readonly executionMode: ExecutionMode;
  readonly serviceAccountId: string | null;
}

/** Inserts; `name_in_use` when the Namespace already has an Agent of that name. */
export async function insertAgent(
  q: Queryable,
  input: NewAgent,
): Promise<{ outcome: "inserted"; agent: AgentRecord } | { outcome: "name_in_use" }> {
  const res = await q.query(
    `INSERT INTO agents (id, namespace_id, name, configuration_id, execution_mode, service_account_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT ON CONSTRAINT agents_name_unique DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.namespaceId,
      input.name,
      input.configurationId,
      input.executionMode,
      input.serviceAccountId,
    ],
  );
  const agent = agentsTable.decodeFirst(res.rows);
  return agent === undefined ? { outcome: "name_in_use" } : { outcome: "inserted", agent };
}

/** The Agent `id` of whichever Namespace (the worker's lookup from a work item). */
export function getAgent(q: Queryable, id: string): Promise<AgentRecord | undefined> {
  return rowById(q, agentsTable, id);
}

const agentIdRow = defineRow("agents (id)", { id: text });
const nameCountRow = defineRow("agents (name, count)", { name: text, n: integer });

/** How many Agents (any status) the Namespace holds, and the first `limit` IDs. */
export async function firstAgentIds(
  q: Queryable,
  namespaceId: NamespaceId,
  limit: number,
): Promise<{ readonly count: number; readonly ids: readonly string[] }> {
  return firstIds(q, "agents", namespaceId, limit);
}

/** The IDs of every Agent of a Namespace (any status), oldest first. */
export async function agentIdsOf(q: Queryable, namespaceId: NamespaceId): Promise<string[]> {
  const res = await q.query(
    "SELECT id FROM agents WHERE namespace_id = $1 ORDER BY created_at, id",
    [namespaceId],
  );
  return agentIdRow.decodeAll(res.rows).map((r) => r.id);
}

/**
 * The Agents of a Namespace that reference a Configuration or a ServiceAccount (any status:
 * a deleting Agent's teardown may still need them), oldest first, at most `limit` names.
 * Callers hold the Namespace row lock, as Agent creation does, so the answer cannot go stale
 * before they commit.
 */
export async function agentsReferencing(
  q: Queryable,
  namespaceId: NamespaceId,
  ref: { readonly configurationId: string } | { readonly serviceAccountId: string },
  limit = 5,
): Promise<{ readonly count: number; readonly names: readonly string[] }> {
  const [column, value] =
    "configurationId" in ref
      ? ["configuration_id", ref.configurationId]
      : ["service_account_id", ref.serviceAccountId];
  const res = await q.query(
    `SELECT name, (count(*) OVER ())::int AS n FROM agents
     WHERE namespace_id = $1 AND ${column} = $2 ORDER BY created_at, id LIMIT $3`,
    [namespaceId, value, limit],
  );
  const rows = nameCountRow.decodeAll(res.rows);
  return { count: rows[0]?.n ?? 0, names: rows.map((r) => r.name) };
}

/** `active` → `deleting`; returns the row as it is now. */
export async function markAgentDeleting(q: Queryable, id: string): Promise<AgentRecord> {
  const res = await q.query(
    `UPDATE agents SET status = 'deleting', updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return agentsTable.decode(res.rows[0]);
}

/** Records why the Agent's latest work is pending or failed (`null` clears it). */
export async function setAgentReason(
  q: Queryable,
  id: string,
  reason: { readonly code: string; readonly message: string } | null,
): Promise<void> {
  await q.query(
    "UPDATE agents SET status_code = $2, status_message = $3, updated_at = now() WHERE id = $1",
    [id, reason?.code ?? null, reason?.message ?? null],
  );
}

/** Points the Agent at `revisionId` (the gateway now serves it) and clears its reason. */
export async function setCurrentRevision(
  q: Queryable,
  id: string,
  revisionId: string,
): Promise<void> {
  await q.query(
    `UPDATE agents SET current_revision_id = $2, status_code = NULL, status_message = NULL,
       updated_at = now() WHERE id = $1`,
    [id, revisionId],
  );
}

/** Deletes the Agent and (by cascade) its revisions, once its objects are gone. */
export async function deleteAgentRow(q: Queryable, id: string): Promise<void> {
  await q.query("DELETE FROM agents WHERE id = $1", [id]);
}
