/**
 * The orphan routes (quality.md R9, `services/namespaces/orphans.ts`): the report of Kubernetes
 * namespaces whose tenant markers name a platform Namespace the database does not know, and
 * the import that re-attaches one through the external-adoption path. Administrators only.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { DataEnvelope, NoQuerySchema } from "../../contract/envelopes.js";
import { NamespaceSchema } from "../../contract/namespaces.js";
import { ImportNamespaceBodySchema, OrphanListSchema } from "../../contract/orphans.js";
import {
  importOrphan,
  listOrphans,
  type OrphanServiceDeps,
} from "../../services/namespaces/orphans.js";
import { callerOf, envelope } from "../request-context.js";
import { errorResponses, op, security, type ApiTag } from "../schemas.js";
import { presentNamespace } from "../../services/namespaces/present.js";

const tags: ApiTag[] = ["namespaces"];

export const orphanRoutes: FastifyPluginCallbackTypebox<OrphanServiceDeps> = (app, deps, done) => {
  app.get(
    "/namespaces/orphans",
    {
      schema: {
        tags,
        security,
        ...op(
          "listOrphanNamespaces",
          "List orphaned Kubernetes namespaces",
          "Kubernetes namespaces whose tenant markers name a platform Namespace the database does not know (e.g. after a restore); OCC never deletes, adopts or modifies them (administrators).",
        ),
        querystring: NoQuerySchema,
        response: { 200: DataEnvelope(OrphanListSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const items = await listOrphans(deps, callerOf(request));
      return envelope(request, { items });
    },
  );

  app.post(
    "/namespaces/imports",
    {
      schema: {
        tags,
        security,
        ...op(
          "importOrphanNamespace",
          "Import an orphaned namespace",
          "Create a Namespace adopting a released orphan as its existingNamespace (administrators; 201, status provisioning; audited as namespaces.import with the stale ID).",
        ),
        body: ImportNamespaceBodySchema,
        response: { 201: DataEnvelope(NamespaceSchema), ...errorResponses(403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await importOrphan(deps, callerOf(request), request.body);
      return reply
        .status(201)
        .send(envelope(request, presentNamespace(created, deps.preprovisionedNamespaceId)));
    },
  );
  done();
};
