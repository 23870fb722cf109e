/**
 * The Secret routes (drivers.md §2): metadata out, values only in. Handlers only translate: HTTP in, a service call,
 * the envelope out; the check order lives in `service.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { SecretRecord } from "../../store/secrets.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import {
  createRoute,
  deleteRoute,
  listRoute,
  readRoute,
  updateRoute,
  type TenantResource,
} from "../tenant/resource-routes.js";
import {
  SecretParamsSchema,
  SecretSchema,
  CreateSecretBodySchema,
  UpdateSecretBodySchema,
} from "../../contract/secrets.js";
import { presentSecret } from "./present.js";
import {
  createSecret,
  deleteSecret,
  listNamespaceSecrets,
  readSecret,
  updateSecret,
} from "../../services/tenant/secrets.js";

const resource: TenantResource<SecretRecord, typeof SecretSchema> = {
  tags: ["secrets"],
  kind: "secret",
  collection: "/namespaces/:id/secrets",
  idParam: "secretId",
  itemParams: SecretParamsSchema,
  schema: SecretSchema,
  present: presentSecret,
};

export const secretRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (app, deps, done) => {
  createRoute(app, deps, resource, {
    summary: "Create a Secret (201); the value goes to a Kubernetes Secret and is never returned.",
    body: CreateSecretBodySchema,
    create: createSecret,
  });
  listRoute(app, deps, resource, {
    summary: "List a Namespace's Secrets (metadata), each verified against its Kubernetes Secret.",
    list: listNamespaceSecrets,
  });
  readRoute(app, deps, resource, {
    summary: "Read one Secret's metadata (503 when its Kubernetes Secret was altered).",
    read: readSecret,
  });
  updateRoute(app, deps, resource, {
    summary: "Replace a Secret's value (version + 1).",
    body: UpdateSecretBodySchema,
    update: updateSecret,
  });
  deleteRoute(app, deps, resource, {
    summary: "Delete a Secret and its Kubernetes Secret (204).",
    remove: deleteSecret,
  });
  done();
};
