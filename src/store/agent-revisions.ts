/**
 * AgentRevision records (control-plane.md §1, drivers.md §4): immutable snapshots a deploy
 * admits — the Configuration document and generation, the execution mode, the ServiceAccount
 * and the Compute selection. Only the lifecycle columns change (a trigger refuses anything
 * else): `queued` → `active` → `retired`, or `queued` → `superseded` | `failed`.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { isAgentId, isRevisionId, type AgentId, type RevisionId } from "../domain/workloads/ids.js";
import {
  branded,
  defineTable,
  integer,
  jsonObject,
  nullable,
  oneOf,
  text,
  timestamp,
  namespaceIdColumn,
} from "./columns.js";
import type { JsonObject, RowOf } from "./columns.js";
import type { Queryable } from "./db.js";
import { pagesOf } from "./paging.js";
import {
  EXECUTION_MODES,
  REVISION_STATUSES,
  type ExecutionMode,
  type RevisionStatus,
} from "../domain/workloads/vocabulary.js";

export const agentRevisionsTable = defineTable("agent_revisions", {
  id: branded(isRevisionId, "an AgentRevision ID"),
  agentId: branded(isAgentId, "an Agent ID"),
  namespaceId: namespaceIdColumn,
  number: integer,
  configurationId: text,
  configurationGeneration: integer,
  configurationDocument: text,
  executionMode: oneOf(EXECUTION_MODES),
  serviceAccountId: nullable(text),
  compute: jsonObject,
  status: oneOf(REVISION_STATUSES),
  statusCode: nullable(text),
  statusMessage: nullable(text),
  createdAt: timestamp,
  activatedAt: nullable(timestamp),
});

export type AgentRevisionRecord = RowOf<typeof agentRevisionsTable.columns>;

const COLUMNS = agentRevisionsTable.select();

export interface NewAgentRevision {
  readonly id: RevisionId;
  readonly agentId: AgentId;
  readonly namespaceId: NamespaceId;
  readonly configurationId: string;
  readonly configurationGeneration: number;
  readonly configurationDocument: string;
  readonly executionMode: ExecutionMode;
  readonly serviceAccountId: string | null;
  readonly compute: JsonObject;
}

/**
 * Inserts the Agent's next revision (its number is the Agent's revision count + 1, taken
 * under the Agent's row lock by the same statement that counts it).
 */
export async function insertAgentRevision(
  q: Queryable,
  input: NewAgentRevision,
): Promise<AgentRevisionRecord> {
  const res = await q.query(
    `WITH counted AS (
       UPDATE agents SET revision_count = revision_count + 1, updated_at = now()
       WHERE id = $2 RETURNING revision_count)
     INSERT INTO agent_revisions (id, agent_id, namespace_id, number, configuration_id,
       configuration_generation, configuration_document, execution_mode, service_account_id, compute)
     SELECT $1, $2, $3, counted.revision_count, $4, $5, $6, $7, $8, $9::jsonb FROM counted
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.agentId,
      input.namespaceId,
      input.configurationId,
      input.configurationGeneration,
      input.configurationDocument,
      input.executionMode,
      input.serviceAccountId,
      JSON.stringify(input.compute),
    ],
  );
  return agentRevisionsTable.decode(res.rows[0]);
}

/** The revision `id` (of Agent `agentId` when given). */
export async function getAgentRevision(
  q: Queryable,
  agentId: string | null,
  id: string,
): Promise<AgentRevisionRecord | undefined> {
  const res = await q.query(
    `SELECT ${COLUMNS} FROM agent_revisions WHERE id = $1 AND ($2::text IS NULL OR agent_id = $2)`,
    [id, agentId],
  );
  return agentRevisionsTable.decodeFirst(res.rows);
}

/** The Agent's newest revision, if any. */
export async function latestAgentRevision(
  q: Queryable,
  agentId: string,
): Promise<AgentRevisionRecord | undefined> {
  const res = await q.query(
    `SELECT ${COLUMNS} FROM agent_revisions WHERE agent_id = $1 ORDER BY number DESC LIMIT 1`,
    [agentId],
  );
  return agentRevisionsTable.decodeFirst(res.rows);
}

/** One page of an Agent's revisions, oldest first. */
export const listAgentRevisions = pagesOf<string, typeof agentRevisionsTable.columns>(
  agentRevisionsTable,
  "agent_id",
);

/** Sets a revision's lifecycle status and reason (`activated_at` on `active`). */
export async function setRevisionStatus(
  q: Queryable,
  id: string,
  status: RevisionStatus,
  reason: { readonly code: string; readonly message: string } | null,
): Promise<void> {
  await q.query(
    `UPDATE agent_revisions SET status = $2, status_code = $3, status_message = $4,
       activated_at = CASE WHEN $2 = 'active' THEN now() ELSE activated_at END
     WHERE id = $1`,
    [id, status, reason?.code ?? null, reason?.message ?? null],
  );
}

/** Every other `active` revision of the Agent becomes `retired` (its objects were removed). */
export async function retireOtherRevisions(
  q: Queryable,
  agentId: string,
  currentId: string,
): Promise<void> {
  await q.query(
    `UPDATE agent_revisions SET status = 'retired', status_code = NULL, status_message = NULL
     WHERE agent_id = $1 AND id <> $2 AND status = 'active'`,
    [agentId, currentId],
  );
}
