/**
 * The Secret routes (drivers.md §2): metadata out, values only in. Handlers only translate:
 * HTTP in, a service call, the envelope out; the check order lives in
 * `services/tenant/secrets.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { op } from "../schemas.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import { resourceRoutes } from "../tenant/resource-routes.js";
import { isResourceId } from "../tenant/params.js";
import {
  SecretParamsSchema,
  SecretSchema,
  CreateSecretBodySchema,
  UpdateSecretBodySchema,
} from "../../contract/secrets.js";
import { presentSecret } from "../../services/tenant/present.js";
import { secrets } from "../../services/tenant/secrets.js";

export const secretRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (app, deps, done) => {
  resourceRoutes(app, deps, {
    path: "secrets",
    idParam: "secretId",
    itemParams: SecretParamsSchema,
    isId: isResourceId("secret"),
    schema: SecretSchema,
    present: presentSecret,
    bodies: { create: CreateSecretBodySchema, update: UpdateSecretBodySchema },
    service: secrets,
    operations: {
      create: op(
        "createSecret",
        "Create a Secret",
        "Create a Secret (201); the value goes to a Kubernetes Secret and is never returned.",
      ),
      list: op(
        "listSecrets",
        "List Secrets",
        "List a Namespace's Secrets (metadata), each verified against its Kubernetes Secret.",
      ),
      read: op(
        "getSecret",
        "Read a Secret's metadata",
        "Read one Secret's metadata (503 when its Kubernetes Secret was altered).",
      ),
      update: op(
        "updateSecret",
        "Replace a Secret's value",
        "Replace a Secret's value (version + 1).",
      ),
      remove: op(
        "deleteSecret",
        "Delete a Secret",
        "Delete a Secret and its Kubernetes Secret (204).",
      ),
    },
  });
  done();
};
