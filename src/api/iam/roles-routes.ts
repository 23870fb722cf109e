/** `/roles`: create, list, read and delete roles (named sets of permissions). */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Db } from "../../services/handles.js";
import {
  createRoleAsAdministrator,
  getRole,
  listRoles,
  removeRole,
} from "../../services/iam/roles.js";
import { presentRole } from "../../services/iam/present.js";
import {
  createOneRoute,
  deleteOneRoute,
  getOneRoute,
  iamResource,
  listPageRoute,
} from "./resource-routes.js";
import { op } from "../schemas.js";
import { CreateRoleBodySchema, RoleIdSchema, RoleSchema } from "../../contract/iam.js";

const role = iamResource({
  idKind: "role",
  idSchema: RoleIdSchema,
  resourceKind: "role",
  schema: RoleSchema,
  present: presentRole,
});

export const roleRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  createOneRoute(app, db, role, {
    url: "/roles",
    doc: op(
      "createRole",
      "Create a role",
      "Create a role. Its permissions are fixed; create another role to change them.",
    ),
    body: CreateRoleBodySchema,
    statuses: [403, 409, 413, 415],
    create: createRoleAsAdministrator,
  });

  listPageRoute(app, db, role, {
    url: "/roles",
    doc: op("listRoles", "List roles", "List roles with their permissions."),
    action: "roles.list",
    list: listRoles,
  });

  getOneRoute(app, db, role, {
    url: "/roles/:id",
    doc: op("getRole", "Read a role", "Read a role."),
    action: "roles.read",
    notFound: "No such role.",
    get: getRole,
  });

  deleteOneRoute(app, db, role, {
    url: "/roles/:id",
    doc: op("deleteRole", "Delete a role", "Delete a role that no binding uses."),
    action: "roles.delete",
    statuses: [403, 404, 409],
    remove: removeRole,
  });
  done();
};
