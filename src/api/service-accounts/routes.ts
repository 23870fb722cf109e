/**
 * The ServiceAccount routes (drivers.md §3): records only. Handlers only translate: HTTP in, a service call,
 * the envelope out; the check order lives in `service.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { ServiceAccountRecord } from "../../store/service-accounts.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import {
  createRoute,
  deleteRoute,
  listRoute,
  readRoute,
  type TenantResource,
} from "../tenant/resource-routes.js";
import {
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  CreateServiceAccountBodySchema,
} from "../../contract/service-accounts.js";
import { presentServiceAccount } from "./present.js";
import {
  createServiceAccount,
  deleteServiceAccount,
  listNamespaceServiceAccounts,
  readServiceAccount,
} from "../../services/tenant/service-accounts.js";

const resource: TenantResource<ServiceAccountRecord, typeof ServiceAccountSchema> = {
  tags: ["service-accounts"],
  kind: "serviceAccount",
  collection: "/namespaces/:id/service-accounts",
  idParam: "serviceAccountId",
  itemParams: ServiceAccountParamsSchema,
  schema: ServiceAccountSchema,
  present: presentServiceAccount,
};

export const serviceAccountRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
  app,
  deps,
  done,
) => {
  createRoute(app, deps, resource, {
    summary: "Create a ServiceAccount record (201).",
    body: CreateServiceAccountBodySchema,
    create: createServiceAccount,
  });
  listRoute(app, deps, resource, {
    summary: "List a Namespace's ServiceAccounts.",
    list: listNamespaceServiceAccounts,
  });
  readRoute(app, deps, resource, {
    summary: "Read one ServiceAccount.",
    read: readServiceAccount,
  });
  deleteRoute(app, deps, resource, {
    summary: "Delete a ServiceAccount record (204).",
    remove: deleteServiceAccount,
  });
  done();
};
