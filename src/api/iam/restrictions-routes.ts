/** `/restrictions`: deny matching requests whatever the bindings allow; list; remove. */
import { isPreprovisionedNamespaceId } from "../../domain/placement/ids.js";
import { asIamId } from "../../domain/iam/ids.js";
import {
  createRestrictionAsAdministrator,
  listRestrictions,
  removeRestriction,
} from "../../services/iam/restrictions.js";
import { presentRestriction } from "../../services/iam/present.js";
import * as routes from "./resource-routes.js";
import { op } from "../schemas.js";
import {
  CreateRestrictionBodySchema,
  RestrictionIdSchema,
  RestrictionSchema,
} from "../../contract/iam.js";

const restriction = routes.iamResource({
  idKind: "restriction",
  idSchema: RestrictionIdSchema,
  resourceKind: "restriction",
  schema: RestrictionSchema,
  present: presentRestriction,
});

export const restrictionRoutes = routes.dbRoutes((app, db) => {
  routes.createOneRoute(app, db, restriction, {
    url: "/restrictions",
    doc: op(
      "createRestriction",
      "Create a restriction",
      "Create a restriction. Omitted fields match anything; at least one of principalId, namespaceId, action, kind is required.",
    ),
    body: CreateRestrictionBodySchema,
    statuses: [403, 404, 413, 415],
    create: (tx, caller, b) => {
      if (b.namespaceId !== undefined && !isPreprovisionedNamespaceId(b.namespaceId)) {
        throw new Error("schema admitted a bad Namespace ID");
      }
      return createRestrictionAsAdministrator(tx, caller, {
        principalId: b.principalId === undefined ? null : asIamId("principal", b.principalId),
        namespaceId: b.namespaceId ?? null,
        action: b.action ?? null,
        kind: b.kind ?? null,
        ...(b.description === undefined ? {} : { description: b.description }),
      });
    },
  });

  routes.listPageRoute(app, db, restriction, {
    url: "/restrictions",
    doc: op("listRestrictions", "List restrictions", "List restrictions."),
    action: "restrictions.list",
    list: listRestrictions,
  });

  routes.deleteOneRoute(app, db, restriction, {
    url: "/restrictions/:id",
    doc: op("deleteRestriction", "Delete a restriction", "Remove a restriction."),
    action: "restrictions.delete",
    statuses: [403, 404],
    remove: removeRestriction,
  });
});
