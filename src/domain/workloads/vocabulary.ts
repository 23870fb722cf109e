/**
 * The closed vocabularies of Agents and their revisions (control-plane.md §1, drivers.md §4).
 * The migrations' CHECK constraints hold the same lists.
 */

/** How an Agent runs: inside the shared gateway, or in a gateway of its own. */
export const EXECUTION_MODES = ["embedded", "dedicated"] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** `active` until the Agent is deleted, then `deleting` until its objects are torn down. */
export const AGENT_STATUSES = ["active", "deleting"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** `queued` → `active` → `retired`, or `queued` → `superseded` | `failed`. */
export const REVISION_STATUSES = ["queued", "active", "retired", "superseded", "failed"] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];
