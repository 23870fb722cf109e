/**
 * The console's read-only Kubernetes routes (issue 37; the use cases are
 * `services/namespaces/inspection.ts` and `services/operations/installation.ts`): the preflight
 * of a candidate namespace and the selectable ones (administrators), a Namespace's timeline and
 * grants (`namespace:read`), and the Installation's profile and admission policies.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { DataEnvelope, NoQuerySchema } from "../../contract/envelopes.js";
import {
  GrantsSchema,
  InstallationSchema,
  PreflightQuerySchema,
  PreflightResultSchema,
  SelectableListSchema,
  TimelineSchema,
} from "../../contract/inspection.js";
import { NamespaceParamsSchema } from "../../contract/namespaces.js";
import {
  listSelectable,
  namespaceGrants,
  namespaceTimeline,
  preflightCandidate,
  type InspectionDeps,
} from "../../services/namespaces/inspection.js";
import { installationAsAdministrator } from "../../services/operations/installation.js";
import { callerOf, envelope } from "../request-context.js";
import { errorResponses, op, routeSchema, security, type ApiTag } from "../schemas.js";
import { namespaceIdOf } from "../tenant/params.js";

const tags: ApiTag[] = ["namespaces"];

export const inspectionRoutes: FastifyPluginCallbackTypebox<InspectionDeps> = (app, deps, done) => {
  app.get(
    "/namespaces/preflight",
    {
      schema: {
        tags,
        security,
        ...op(
          "preflightNamespace",
          "Preflight an existing namespace",
          "Every requirement an operator-owned Kubernetes namespace fails before it can be selected as existingNamespace, each with its fix: the worker's own adoption checks, read with the API's read-only identity (administrators).",
        ),
        querystring: PreflightQuerySchema,
        response: { 200: DataEnvelope(PreflightResultSchema), ...errorResponses(403, 409) },
      },
    },
    async (request) =>
      envelope(request, await preflightCandidate(deps, callerOf(request), request.query)),
  );

  app.get(
    "/namespaces/selectable",
    {
      schema: {
        tags,
        security,
        ...op(
          "listSelectableNamespaces",
          "List selectable namespaces",
          "Kubernetes namespaces without tenant markers that are not reserved, by name (at most 500): what an administrator may select as existingNamespace, subject to its preflight.",
        ),
        querystring: NoQuerySchema,
        response: { 200: DataEnvelope(SelectableListSchema), ...errorResponses(403, 409) },
      },
    },
    async (request) => envelope(request, await listSelectable(deps, callerOf(request))),
  );

  app.get(
    "/namespaces/:id/timeline",
    {
      schema: routeSchema(
        tags,
        op(
          "getNamespaceTimeline",
          "Read a Namespace's timeline",
          "Its audit events and the Events of its Kubernetes namespace, newest first (50 of each); a refused Events read is named beside the audit events.",
        ),
        NamespaceParamsSchema,
        { 200: DataEnvelope(TimelineSchema), ...errorResponses(403, 404) },
      ),
    },
    async (request) =>
      envelope(
        request,
        await namespaceTimeline(deps, callerOf(request), namespaceIdOf(request.params)),
      ),
  );

  app.get(
    "/namespaces/:id/grants",
    {
      schema: routeSchema(
        tags,
        op(
          "getNamespaceGrants",
          "Read a Namespace's grants",
          "The RoleBindings the operator applies in its Kubernetes namespace, as YAML and as a command.",
        ),
        NamespaceParamsSchema,
        { 200: DataEnvelope(GrantsSchema), ...errorResponses(403, 404, 409) },
      ),
    },
    async (request) =>
      envelope(
        request,
        await namespaceGrants(deps, callerOf(request), namespaceIdOf(request.params)),
      ),
  );

  app.get(
    "/installation",
    {
      schema: {
        tags: ["installation"] satisfies ApiTag[],
        security,
        ...op(
          "getInstallation",
          "Read the Installation",
          "Its profile (normal, or preprovisioned with its bound namespace) and which of OCC's admission policies are present (administrators).",
        ),
        querystring: NoQuerySchema,
        response: { 200: DataEnvelope(InstallationSchema), ...errorResponses(403) },
      },
    },
    async (request) =>
      envelope(request, await installationAsAdministrator(deps, callerOf(request))),
  );
  done();
};
