/** `/roles`: create, list, read and delete roles (named sets of permissions). */
import {
  createRoleAsAdministrator,
  getRole,
  listRoles,
  removeRole,
} from "../../services/iam/roles.js";
import { presentRole } from "../../services/iam/present.js";
import * as routes from "./resource-routes.js";
import { op } from "../schemas.js";
import { CreateRoleBodySchema, RoleIdSchema, RoleSchema } from "../../contract/iam.js";

const role = routes.iamResource({
  idKind: "role",
  idSchema: RoleIdSchema,
  resourceKind: "role",
  schema: RoleSchema,
  present: presentRole,
});

export const roleRoutes = routes.dbRoutes((app, db) => {
  routes.createOneRoute(app, db, role, {
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

  routes.listPageRoute(app, db, role, {
    url: "/roles",
    doc: op("listRoles", "List roles", "List roles with their permissions."),
    action: "roles.list",
    list: listRoles,
  });

  routes.getOneRoute(app, db, role, {
    url: "/roles/:id",
    doc: op("getRole", "Read a role", "Read a role."),
    action: "roles.read",
    notFound: "No such role.",
    get: getRole,
  });

  routes.deleteOneRoute(app, db, role, {
    url: "/roles/:id",
    doc: op("deleteRole", "Delete a role", "Delete a role that no binding uses."),
    action: "roles.delete",
    statuses: [403, 404, 409],
    remove: removeRole,
  });
});
