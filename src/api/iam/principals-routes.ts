/** `/principals`: create, list, read and delete users and service principals. */
import {
  createPrincipalAsAdministrator,
  getPrincipal,
  listPrincipals,
  removePrincipal,
} from "../../services/iam/principals.js";
import { presentPrincipal } from "../../services/iam/present.js";
import * as routes from "./resource-routes.js";
import { op } from "../schemas.js";
import {
  CreatePrincipalBodySchema,
  PrincipalIdSchema,
  PrincipalSchema,
} from "../../contract/iam.js";

const principal = routes.iamResource({
  idKind: "principal",
  idSchema: PrincipalIdSchema,
  resourceKind: "principal",
  schema: PrincipalSchema,
  present: presentPrincipal,
});

export const principalRoutes = routes.dbRoutes((app, db) => {
  routes.createOneRoute(app, db, principal, {
    url: "/principals",
    doc: op("createPrincipal", "Create a principal", "Create a principal (a user or a service)."),
    body: CreatePrincipalBodySchema,
    statuses: [403, 409, 413, 415],
    create: createPrincipalAsAdministrator,
  });

  routes.listPageRoute(app, db, principal, {
    url: "/principals",
    doc: op("listPrincipals", "List principals", "List live principals."),
    action: "principals.list",
    list: listPrincipals,
  });

  routes.getOneRoute(app, db, principal, {
    url: "/principals/:id",
    doc: op("getPrincipal", "Read a principal", "Read a live principal."),
    action: "principals.read",
    notFound: "No such principal.",
    get: getPrincipal,
  });

  routes.deleteOneRoute(app, db, principal, {
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
});
