/**
 * The Agent routes (drivers.md §4): create, list, read and delete Agents, deploy one (202, an
 * AgentRevision), and list and read its revisions. Handlers only translate — HTTP in, a
 * service call, the envelope out; the check order lives in the services.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { isAgentId, isRevisionId } from "../../domain/workloads/ids.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { DataEnvelope, PageEnvelope, PageQuerySchema } from "../../contract/envelopes.js";
import { nextCursor, pageOptions } from "../../services/cursor.js";
import { errorResponses, op, routeSchema, type ApiTag, type OperationDoc } from "../schemas.js";
import { namespaceIdOf } from "../tenant/params.js";
import { listRevisions, readRevision } from "../../services/agents/revisions.js";
import {
  AgentParamsSchema,
  AgentSchema,
  CreateAgentBodySchema,
  RevisionParamsSchema,
  RevisionSchema,
} from "../../contract/agents.js";
import { presentAgent, presentRevision } from "../../services/agents/present.js";
import { agents, type AgentServiceDeps } from "../../services/agents/agents.js";
import { resourceRoutes } from "../tenant/resource-routes.js";

const tags: ApiTag[] = ["agents"];
const AGENTS = "/namespaces/:id/agents";
const AGENT = `${AGENTS}/:agentId`;

/** The OpenAPI description of a route on one Agent (`…/agents/:agentId…`). */
const agentSchema = <R extends object>(doc: OperationDoc, response: R) =>
  routeSchema(tags, doc, AgentParamsSchema, response);

export const agentRoutes: FastifyPluginCallbackTypebox<AgentServiceDeps> = (app, deps, done) => {
  const callOf = (request: FastifyRequest, params: { readonly id: string }) => ({
    deps,
    caller: callerOf(request),
    namespaceId: namespaceIdOf(params),
  });
  resourceRoutes(app, deps, {
    path: "agents",
    idParam: "agentId",
    itemParams: AgentParamsSchema,
    isId: isAgentId,
    schema: AgentSchema,
    present: presentAgent,
    bodies: { create: CreateAgentBodySchema },
    service: { create: agents.create, list: agents.list, read: agents.read },
    operations: {
      create: op(
        "createAgent",
        "Create an Agent",
        "Create an Agent (201); nothing runs until it is deployed.",
      ),
      list: op("listAgents", "List Agents", "List a Namespace's Agents."),
      read: op("getAgent", "Read an Agent", "Read one Agent."),
    },
  });
  app.delete(
    AGENT,
    {
      schema: agentSchema(
        op(
          "deleteAgent",
          "Delete an Agent",
          "Delete an Agent (202, status deleting); its objects and claims are torn down.",
        ),
        { 202: DataEnvelope(AgentSchema), ...errorResponses(403, 404, 409) },
      ),
    },
    async (request, reply) => {
      const agent = await agents.remove(callOf(request, request.params), request.params.agentId);
      return reply.status(202).send(envelope(request, presentAgent(agent)));
    },
  );
  app.post(
    `${AGENT}/deploy`,
    {
      schema: agentSchema(
        op(
          "deployAgent",
          "Deploy an Agent",
          "Deploy an Agent: admit an immutable AgentRevision and queue its rollout (202).",
        ),
        { 202: DataEnvelope(RevisionSchema), ...errorResponses(403, 404, 409) },
      ),
    },
    async (request, reply) => {
      const call = callOf(request, request.params);
      const revision = await agents.deploy(call, request.params.agentId);
      return reply.status(202).send(envelope(request, presentRevision(revision)));
    },
  );
  app.get(
    `${AGENT}/revisions`,
    {
      schema: {
        ...agentSchema(
          op(
            "listAgentRevisions",
            "List an Agent's revisions",
            "List an Agent's revisions, oldest first.",
          ),
          {
            200: PageEnvelope(RevisionSchema),
            ...errorResponses(403, 404),
          },
        ),
        querystring: PageQuerySchema,
      },
    },
    async (request) => {
      const page = await listRevisions(
        callOf(request, request.params),
        request.params.agentId,
        pageOptions(request.query, isRevisionId),
      );
      return pageEnvelope(request, page.items.map(presentRevision), nextCursor(page.next));
    },
  );
  app.get(
    `${AGENT}/revisions/:revisionId`,
    {
      schema: routeSchema(
        tags,
        op("getAgentRevision", "Read an AgentRevision", "Read one AgentRevision."),
        RevisionParamsSchema,
        {
          200: DataEnvelope(RevisionSchema),
          ...errorResponses(403, 404),
        },
      ),
    },
    async (request) => {
      const p = request.params;
      const revision = await readRevision(callOf(request, p), p.agentId, p.revisionId);
      return envelope(request, presentRevision(revision));
    },
  );
  done();
};
