/**
 * The Agent a pass is about and its newest revision, as a part of another statement: the
 * worker's claim reads them beside the claimed work item (`queue/attach.ts`), so a pass starts
 * without round trips of its own. Column names and decoding stay here.
 */
import { agentRevisionsTable, type AgentRevisionRecord } from "./agent-revisions.js";
import { agentsTable, type AgentRecord } from "./agents.js";

/** How the Agent's and the revision's columns are renamed (beside the work item's). */
const AGENT = "ag_";
const REVISION = "rv_";

export interface AgentWithRevision {
  readonly agent: AgentRecord;
  /** The Agent's newest revision (by number), if any. */
  readonly revision: AgentRevisionRecord | undefined;
}

/** An Agent read inside another statement, and how to read it back from the row. */
export interface AgentPart {
  /** At most one row. */
  readonly sql: string;
  /** The Agent in `row` and its newest revision; `undefined` when there is no such Agent. */
  read(row: Readonly<Record<string, unknown>>): AgentWithRevision | undefined;
}

/** The Agent whose ID is the SQL expression `id`, with its newest revision. */
export function agentById(id: string): AgentPart {
  return {
    sql: `SELECT ${agentsTable.select("ag", AGENT)}, ${agentRevisionsTable.select("rv", REVISION)}
  FROM agents AS ag
  LEFT JOIN LATERAL (SELECT * FROM agent_revisions AS r WHERE r.agent_id = ag.id
                     ORDER BY r.number DESC LIMIT 1) AS rv ON true
  WHERE ag.id = ${id}`,
    read(row) {
      if ((row[`${AGENT}id`] ?? null) === null) return undefined;
      const agent = agentsTable.decode(row, AGENT);
      const revision =
        (row[`${REVISION}id`] ?? null) === null
          ? undefined
          : agentRevisionsTable.decode(row, REVISION);
      return { agent, revision };
    },
  };
}
