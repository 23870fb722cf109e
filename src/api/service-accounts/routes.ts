/**
 * The ServiceAccount routes (drivers.md §3): records only. Handlers only translate: HTTP in,
 * a service call, the envelope out; the check order lives in
 * `services/tenant/service-accounts.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import { resourceRoutes } from "../tenant/resource-routes.js";
import { isResourceId } from "../tenant/params.js";
import {
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  CreateServiceAccountBodySchema,
} from "../../contract/service-accounts.js";
import { presentServiceAccount } from "./present.js";
import { serviceAccounts } from "../../services/tenant/service-accounts.js";

export const serviceAccountRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
  app,
  deps,
  done,
) => {
  resourceRoutes(app, deps, {
    path: "service-accounts",
    idParam: "serviceAccountId",
    itemParams: ServiceAccountParamsSchema,
    isId: isResourceId("serviceAccount"),
    schema: ServiceAccountSchema,
    present: presentServiceAccount,
    bodies: { create: CreateServiceAccountBodySchema },
    service: serviceAccounts,
    summaries: {
      create: "Create a ServiceAccount record (201).",
      list: "List a Namespace's ServiceAccounts.",
      read: "Read one ServiceAccount.",
      remove: "Delete a ServiceAccount record (204).",
    },
  });
  done();
};
