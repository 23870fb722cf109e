/** `/principals`: create, list, read and delete users and service principals. */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Db } from "../../services/handles.js";
import {
  createPrincipalAsAdministrator,
  getPrincipal,
  listPrincipals,
  removePrincipal,
} from "../../services/iam/principals.js";
import { presentPrincipal } from "../../services/iam/present.js";
import {
  createOneRoute,
  deleteOneRoute,
  getOneRoute,
  iamResource,
  listPageRoute,
} from "./resource-routes.js";
import { op } from "../schemas.js";
import {
  CreatePrincipalBodySchema,
  PrincipalIdSchema,
  PrincipalSchema,
} from "../../contract/iam.js";

const principal = iamResource({
  idKind: "principal",
  idSchema: PrincipalIdSchema,
  resourceKind: "principal",
  schema: PrincipalSchema,
  present: presentPrincipal,
});

export const principalRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  createOneRoute(app, db, principal, {
    url: "/principals",
    doc: op("createPrincipal", "Create a principal", "Create a principal (a user or a service)."),
    body: CreatePrincipalBodySchema,
    statuses: [403, 409, 413, 415],
    create: createPrincipalAsAdministrator,
  });

  listPageRoute(app, db, principal, {
    url: "/principals",
    doc: op("listPrincipals", "List principals", "List live principals."),
    action: "principals.list",
    list: listPrincipals,
  });

  getOneRoute(app, db, principal, {
    url: "/principals/:id",
    doc: op("getPrincipal", "Read a principal", "Read a live principal."),
    action: "principals.read",
    notFound: "No such principal.",
    get: getPrincipal,
  });

  deleteOneRoute(app, db, principal, {
    url: "/principals/:id",
    doc: op(
      "deletePrincipal",
      "Delete a principal",
      "Delete a principal: it can no longer authenticate, and its API keys are revoked.",
    ),
    action: "principals.delete",
    statuses: [403, 404, 409],
    remove: removePrincipal,
  });
  done();
};
