/**
 * The Configuration routes (drivers.md §1). Handlers only translate: HTTP in, a service call,
 * the envelope out; the check order lives in `service.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
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
  ConfigurationParamsSchema,
  ConfigurationSchema,
  CreateConfigurationBodySchema,
  UpdateConfigurationBodySchema,
} from "../../contract/configurations.js";
import { presentConfiguration } from "./present.js";
import {
  createConfiguration,
  deleteConfiguration,
  listNamespaceConfigurations,
  readConfiguration,
  updateConfiguration,
  type ConfigurationWithDocument,
} from "../../services/tenant/configurations.js";

const resource: TenantResource<ConfigurationWithDocument, typeof ConfigurationSchema> = {
  tags: ["configurations"],
  kind: "configuration",
  collection: "/namespaces/:id/configurations",
  idParam: "configurationId",
  itemParams: ConfigurationParamsSchema,
  schema: ConfigurationSchema,
  present: (c) => presentConfiguration(c.record, c.document),
};

export const configurationRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
  app,
  deps,
  done,
) => {
  createRoute(app, deps, resource, {
    summary:
      "Create a Configuration (201); its document goes to a ConfigMap in the bound namespace.",
    body: CreateConfigurationBodySchema,
    create: createConfiguration,
  });
  listRoute(app, deps, resource, {
    summary: "List a Namespace's Configurations, each verified against its ConfigMap.",
    list: listNamespaceConfigurations,
  });
  readRoute(app, deps, resource, {
    summary: "Read one Configuration (503 when its ConfigMap was altered: never repaired).",
    read: readConfiguration,
  });
  updateRoute(app, deps, resource, {
    summary: "Replace a Configuration's document (generation + 1).",
    body: UpdateConfigurationBodySchema,
    update: updateConfiguration,
  });
  deleteRoute(app, deps, resource, {
    summary: "Delete a Configuration and its ConfigMap (204).",
    remove: deleteConfiguration,
  });
  done();
};
