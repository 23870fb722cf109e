/** `/bindings`: give a principal a role Installation-wide or in one Namespace, list, remove. */
import type { Static } from "@sinclair/typebox";
import { isPreprovisionedNamespaceId, type NamespaceId } from "../../domain/placement/ids.js";
import { asIamId } from "../../domain/iam/ids.js";
import {
  createBindingAsAdministrator,
  getBinding,
  listBindings,
  removeBinding,
  type BindingFilter,
} from "../../services/iam/bindings.js";
import { presentBinding } from "../../services/iam/present.js";
import * as routes from "./resource-routes.js";
import { op } from "../schemas.js";
import {
  BindingIdSchema,
  BindingQuerySchema,
  BindingSchema,
  CreateBindingBodySchema,
} from "../../contract/iam.js";

const binding = routes.iamResource({
  idKind: "binding",
  idSchema: BindingIdSchema,
  resourceKind: "binding",
  schema: BindingSchema,
  present: presentBinding,
});

function namespaceIdOf(value: string | null | undefined): NamespaceId | null {
  if (value === null || value === undefined) return null;
  if (!isPreprovisionedNamespaceId(value)) throw new Error("schema admitted a bad Namespace ID");
  return value;
}

/** The listing filter of a `GET /bindings` query. */
function filterOf(query: Static<typeof BindingQuerySchema>): BindingFilter {
  return {
    principalId:
      query.principalId === undefined ? undefined : asIamId("principal", query.principalId),
    roleId: query.roleId === undefined ? undefined : asIamId("role", query.roleId),
    namespaceId: namespaceIdOf(query.namespaceId) ?? undefined,
  };
}

export const bindingRoutes = routes.dbRoutes((app, db) => {
  routes.createOneRoute(app, db, binding, {
    url: "/bindings",
    doc: op(
      "createBinding",
      "Create a binding",
      "Bind a role to a principal, Installation-wide or in one Namespace.",
    ),
    body: CreateBindingBodySchema,
    statuses: [403, 404, 409, 413, 415],
    create: (tx, caller, body) =>
      createBindingAsAdministrator(tx, caller, {
        principalId: asIamId("principal", body.principalId),
        roleId: asIamId("role", body.roleId),
        namespaceId: namespaceIdOf(body.namespaceId),
      }),
  });

  routes.listPageRoute(app, db, binding, {
    url: "/bindings",
    doc: op(
      "listBindings",
      "List bindings",
      "List bindings, optionally of one principal, role or Namespace.",
    ),
    action: "bindings.list",
    querystring: BindingQuerySchema,
    list: (q, page, { query }) => listBindings(q, filterOf(query), page),
  });

  routes.getOneRoute(app, db, binding, {
    url: "/bindings/:id",
    doc: op("getBinding", "Read a binding", "Read a binding."),
    action: "bindings.read",
    notFound: "No such binding.",
    get: getBinding,
  });

  routes.deleteOneRoute(app, db, binding, {
    url: "/bindings/:id",
    doc: op("deleteBinding", "Delete a binding", "Remove a binding."),
    action: "bindings.delete",
    statuses: [403, 404],
    remove: removeBinding,
  });
});
