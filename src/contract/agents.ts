/**
 * The Agent and AgentRevision resources as the API shows them (drivers.md §4), and the bodies
 * and parameters of their routes.
 */
import { Type, type Static } from "@sinclair/typebox";
import { AGENT_ID_PATTERN, REVISION_ID_PATTERN } from "../domain/workloads/ids.js";
import {
  REVISION_STATUSES,
  AGENT_STATUSES,
  EXECUTION_MODES,
} from "../domain/workloads/vocabulary.js";
import { ConfigurationIdSchema } from "./configurations.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { ServiceAccountIdSchema } from "./service-accounts.js";
import { Closed, DisplayName, DateTime, IdString, literalUnion, Nullable } from "./envelopes.js";

export const AgentIdSchema = IdString(AGENT_ID_PATTERN.source, "An Agent ID (`agt_…`).");
export const RevisionIdSchema = IdString(
  REVISION_ID_PATTERN.source,
  "An AgentRevision ID (`rev_…`).",
);

export const CreateAgentBodySchema = Closed(
  {
    name: DisplayName({ maxLength: 200 }),
    configurationId: ConfigurationIdSchema,
    executionMode: literalUnion(EXECUTION_MODES),
    serviceAccountId: Type.Optional(ServiceAccountIdSchema),
  },
  {
    examples: [
      {
        name: "support assistant",
        configurationId: "cfg_0b6c2f4e-8d1a-4c3b-9e7f-2a5d6c8b1e40",
        executionMode: "embedded",
      },
    ],
  },
);
export type CreateAgentBody = Static<typeof CreateAgentBodySchema>;

export const AgentParamsSchema = Closed({ id: NamespaceIdSchema, agentId: AgentIdSchema });

export const RevisionParamsSchema = Closed({
  id: NamespaceIdSchema,
  agentId: AgentIdSchema,
  revisionId: RevisionIdSchema,
});

const StatusReason = Nullable(Closed({ code: Type.String(), message: Type.String() }));

export const AgentSchema = Closed({
  id: AgentIdSchema,
  namespaceId: NamespaceIdSchema,
  name: Type.String(),
  configurationId: ConfigurationIdSchema,
  executionMode: literalUnion(EXECUTION_MODES),
  serviceAccountId: Nullable(ServiceAccountIdSchema),
  status: literalUnion(AGENT_STATUSES),
  currentRevisionId: Nullable(RevisionIdSchema),
  statusReason: StatusReason,
  createdAt: DateTime,
});
export type AgentView = Static<typeof AgentSchema>;

export const RevisionSchema = Closed({
  id: RevisionIdSchema,
  agentId: AgentIdSchema,
  namespaceId: NamespaceIdSchema,
  number: Type.Integer({ minimum: 1 }),
  configurationId: ConfigurationIdSchema,
  configurationGeneration: Type.Integer({ minimum: 1 }),
  executionMode: literalUnion(EXECUTION_MODES),
  serviceAccountId: Nullable(ServiceAccountIdSchema),
  compute: Type.Record(Type.String(), Type.String()),
  status: literalUnion(REVISION_STATUSES),
  statusReason: StatusReason,
  createdAt: DateTime,
  activatedAt: Nullable(DateTime),
});
export type RevisionView = Static<typeof RevisionSchema>;
