/**
 * The Agent routes (drivers.md §4): create, list, read and delete Agents, deploy one (202, an
 * AgentRevision), and list and read its revisions. Handlers only translate — HTTP in, a
 * service call, the envelope out; the check order lives in the services.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import type { Static, TSchema } from "@sinclair/typebox";
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
import { agents, type AgentCall, type AgentServiceDeps } from "../../services/agents/agents.js";
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
  /** An action on one Agent that queues work: 202 with the record it answers. */
  const acceptedRoute = <V extends TSchema, R>(
    method: "DELETE" | "POST",
    url: string,
    doc: OperationDoc,
    schema: V,
    run: (call: AgentCall, agentId: string) => Promise<R>,
    present: (record: R) => Static<V>,
  ) => {
    app.route<{ Params: Static<typeof AgentParamsSchema> }>({
      method,
      url,
      schema: agentSchema(doc, { 202: DataEnvelope(schema), ...errorResponses(403, 404, 409) }),
      handler: async (request, reply) => {
        const record = await run(callOf(request, request.params), request.params.agentId);
        return reply.status(202).send(envelope(request, present(record)));
      },
    });
  };
  acceptedRoute(
    "DELETE",
    AGENT,
    op(
      "deleteAgent",
      "Delete an Agent",
      "Delete an Agent (202, status deleting); its objects and claims are torn down.",
    ),
    AgentSchema,
    agents.remove,
    presentAgent,
  );
  acceptedRoute(
    "POST",
    `${AGENT}/deploy`,
    op(
      "deployAgent",
      "Deploy an Agent",
      "Deploy an Agent: admit an immutable AgentRevision and queue its rollout (202).",
    ),
    RevisionSchema,
    agents.deploy,
    presentRevision,
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
