/**
 * The orphan routes (quality.md R9, `services/namespaces/orphans.ts`): the report of Kubernetes
 * namespaces whose tenant markers name a platform Namespace the database does not know, and
 * the import that re-attaches one through the external-adoption path. Administrators only.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { DataEnvelope, NoQuerySchema } from "../../contract/envelopes.js";
import { ImportNamespaceBodySchema, OrphanListSchema } from "../../contract/orphans.js";
import {
  importOrphan,
  listOrphans,
  type OrphanServiceDeps,
} from "../../services/namespaces/orphans.js";
import { callerOf, envelope } from "../request-context.js";
import { errorResponses, op, security, type ApiTag } from "../schemas.js";
import { presentNamespace, type NamespaceRecord } from "../../services/namespaces/present.js";
import { createRoute } from "../create-route.js";
import { NamespaceSchema } from "../../contract/namespaces.js";

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

  createRoute(app, {
    security,
    url: "/namespaces/imports",
    tags,
    doc: op(
      "importOrphanNamespace",
      "Import an orphaned namespace",
      "Create a Namespace adopting a released orphan as its existingNamespace (administrators; 201, status provisioning; audited as namespaces.import with the stale ID).",
    ),
    body: ImportNamespaceBodySchema,
    schema: NamespaceSchema,
    present: (record: NamespaceRecord) => presentNamespace(record, deps.preprovisionedNamespaceId),
    statuses: [403, 409, 413, 415],
    create: (caller, body) => importOrphan(deps, caller, body),
  });
  done();
};
