/**
 * The handles the API holds and hands to the use cases without looking inside them: the
 * database and a transaction on it, a page of records and how to ask for one, the process's
 * policy cache, the migrations a release needs, and the queue configurations of Namespace and
 * Agent work (with their defaults). The API names them from here, so `src/api` depends on the
 * use cases, the contract and the domain alone (issue 43); what they are is decided below
 * `src/services`.
 */
export type { Db, Queryable } from "../store/db.js";
export type { Page, PageOptions } from "../store/paging.js";
export type { RequiredSchema } from "../store/schema-version.js";
export type { PolicyCache } from "../iam/policy-cache.js";
export type { QueueConfig } from "../queue/work-items.js";
export { guardDatabase } from "../store/guarded-db.js";
export { namespaceQueueConfig, type NamespaceWorkKind } from "../work/namespace-work.js";
export { agentQueueConfig, type AgentWorkKind } from "../work/agent-work.js";
