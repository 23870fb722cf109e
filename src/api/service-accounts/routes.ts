/**
 * The ServiceAccount routes (drivers.md §3): records only. Handlers only translate: HTTP in,
 * a service call, the envelope out; the check order lives in
 * `services/tenant/service-accounts.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { op } from "../schemas.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import { resourceRoutes } from "../tenant/resource-routes.js";
import { isResourceId } from "../tenant/params.js";
import {
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  CreateServiceAccountBodySchema,
} from "../../contract/service-accounts.js";
import { presentServiceAccount } from "../../services/tenant/present.js";
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
    operations: {
      create: op(
        "createServiceAccount",
        "Create a ServiceAccount",
        "Create a ServiceAccount record (201).",
      ),
      list: op(
        "listServiceAccounts",
        "List ServiceAccounts",
        "List a Namespace's ServiceAccounts.",
      ),
      read: op("getServiceAccount", "Read a ServiceAccount", "Read one ServiceAccount."),
      remove: op(
        "deleteServiceAccount",
        "Delete a ServiceAccount",
        "Delete a ServiceAccount record (204).",
      ),
    },
  });
  done();
};
