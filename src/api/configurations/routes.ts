/**
 * The Configuration routes (drivers.md §1). Handlers only translate: HTTP in, a service call,
 * the envelope out; the check order lives in `services/tenant/configurations.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { op } from "../schemas.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import { resourceRoutes } from "../tenant/resource-routes.js";
import { isResourceId } from "../tenant/params.js";
import {
  ConfigurationParamsSchema,
  ConfigurationSchema,
  CreateConfigurationBodySchema,
  UpdateConfigurationBodySchema,
} from "../../contract/configurations.js";
import { presentConfiguration } from "../../services/tenant/present.js";
import { configurations } from "../../services/tenant/configurations.js";

export const configurationRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
  app,
  deps,
  done,
) => {
  resourceRoutes(app, deps, {
    path: "configurations",
    idParam: "configurationId",
    itemParams: ConfigurationParamsSchema,
    isId: isResourceId("configuration"),
    schema: ConfigurationSchema,
    present: (c) => presentConfiguration(c.record, c.document),
    bodies: { create: CreateConfigurationBodySchema, update: UpdateConfigurationBodySchema },
    service: configurations,
    operations: {
      create: op(
        "createConfiguration",
        "Create a Configuration",
        "Create a Configuration (201); its document goes to a ConfigMap in the bound namespace.",
      ),
      list: op(
        "listConfigurations",
        "List Configurations",
        "List a Namespace's Configurations, each verified against its ConfigMap.",
      ),
      read: op(
        "getConfiguration",
        "Read a Configuration",
        "Read one Configuration (503 when its ConfigMap was altered: never repaired).",
      ),
      update: op(
        "updateConfiguration",
        "Replace a Configuration's document",
        "Replace a Configuration's document (generation + 1).",
      ),
      remove: op(
        "deleteConfiguration",
        "Delete a Configuration",
        "Delete a Configuration and its ConfigMap (204).",
      ),
    },
  });
  done();
};
