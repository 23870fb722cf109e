/**
 * The closed vocabularies of the control plane's own records: audit events
 * (control-plane.md §6) and worker reports. The migrations' CHECK constraints hold the same
 * lists.
 */

/** What an audit event records: a change, a refusal, or a step of the lifecycle. */
export const AUDIT_EVENT_KINDS = ["mutation", "authorization_denial", "lifecycle"] as const;
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number];

export const AUDIT_OUTCOMES = ["success", "denied", "failure"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** What a worker process last said about itself: started, refused to start, or stopped. */
export const WORKER_STATES = ["running", "refused", "stopped"] as const;
export type WorkerState = (typeof WORKER_STATES)[number];
