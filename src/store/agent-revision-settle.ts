/** The worker's write to an Agent's other revisions when one becomes active. */
import type { Queryable } from "./db.js";

/** Every other revision of the Agent still queued is superseded by `activeId`. */
export async function supersedeQueuedRevisions(
  q: Queryable,
  agentId: string,
  activeId: string,
): Promise<void> {
  await q.query(
    `UPDATE agent_revisions SET status = 'superseded'
     WHERE agent_id = $1 AND id <> $2 AND status = 'queued'`,
    [agentId, activeId],
  );
}
