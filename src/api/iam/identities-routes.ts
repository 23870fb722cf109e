/**
 * External identities of a user principal (issue 42): link (`POST`), list (`GET`) and unlink
 * (`DELETE` with `issuer` and `subject` in the query). Every route needs
 * `installation:administer`, like the rest of IAM administration.
 */
import { Type } from "@sinclair/typebox";
import { asIamId } from "../../domain/iam/ids.js";
import { administer } from "../../services/iam/administer.js";
import {
  linkIdentityAsAdministrator,
  listIdentities,
  unlinkIdentityAsAdministrator,
} from "../../services/iam/identities.js";
import { presentIdentity } from "../../services/iam/present.js";
import { DataEnvelope } from "../../contract/envelopes.js";
import { IdParams, PrincipalIdSchema } from "../../contract/iam.js";
import {
  ExternalIdentitySchema,
  LinkIdentityBodySchema,
  UnlinkIdentityQuerySchema,
} from "../../contract/identities.js";
import { errorResponses, op } from "../schemas.js";
import { callerOf, envelope } from "../request-context.js";
import { security, tags, dbRoutes } from "./resource-routes.js";

const URL = "/principals/:id/identities";
const params = IdParams(PrincipalIdSchema);

export const identityRoutes = dbRoutes((app, db) => {
  app.post(
    URL,
    {
      schema: {
        tags,
        security,
        ...op(
          "linkIdentity",
          "Link an external identity",
          "Link an external identity (issuer + subject) to a user principal.",
        ),
        params,
        body: LinkIdentityBodySchema,
        response: {
          201: DataEnvelope(ExternalIdentitySchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const linked = await linkIdentityAsAdministrator(db, callerOf(request), {
        principalId: asIamId("principal", request.params.id),
        issuer: request.body.issuer,
        subject: request.body.subject,
        email: request.body.email ?? null,
      });
      return reply.status(201).send(envelope(request, presentIdentity(linked)));
    },
  );

  app.get(
    URL,
    {
      schema: {
        tags,
        security,
        ...op(
          "listIdentities",
          "List external identities",
          "List a principal's external identities.",
        ),
        params,
        response: {
          200: DataEnvelope(Type.Array(ExternalIdentitySchema)),
          ...errorResponses(403),
        },
      },
    },
    async (request) => {
      const principalId = asIamId("principal", request.params.id);
      const found = await administer(
        db,
        callerOf(request),
        { action: "identities.list", resourceKind: "principal", resourceId: principalId },
        () => listIdentities(db, principalId),
      );
      return envelope(request, found.map(presentIdentity));
    },
  );

  app.delete(
    URL,
    {
      schema: {
        tags,
        security,
        ...op(
          "unlinkIdentity",
          "Unlink an external identity",
          "Unlink an external identity from a principal.",
        ),
        params,
        querystring: UnlinkIdentityQuerySchema,
        response: { 200: DataEnvelope(ExternalIdentitySchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const gone = await unlinkIdentityAsAdministrator(
        db,
        callerOf(request),
        asIamId("principal", request.params.id),
        { issuer: request.query.issuer, subject: request.query.subject },
      );
      return envelope(request, presentIdentity(gone));
    },
  );
});
