/**
 * The administrator's sign-in routes (issue 42): set or reset a user's password, list a
 * principal's live sessions, revoke one. Each needs `installation:administer`, like every IAM
 * route, and is audited.
 */
import { asIamId } from "../../domain/iam/ids.js";
import { SessionIdSchema, SessionSchema, SetPasswordBodySchema } from "../../contract/auth.js";
import { IdParams, PrincipalIdSchema } from "../../contract/iam.js";
import { setPasswordAsAdministrator } from "../../services/signin/password.js";
import { listLiveSessions, revokeSessionStep } from "../../services/signin/sessions.js";
import { presentSession } from "../../services/iam/present.js";
import { errorResponses, op } from "../schemas.js";
import { callerOf } from "../request-context.js";
import {
  deleteOneRoute,
  listOfPrincipalRoute,
  iamResource,
  security,
  tags,
  dbRoutes,
} from "../iam/resource-routes.js";

const session = iamResource({
  idKind: "session",
  idSchema: SessionIdSchema,
  resourceKind: "session",
  schema: SessionSchema,
  present: presentSession,
});

export const sessionAdminRoutes = dbRoutes((app, db) => {
  app.put(
    "/principals/:id/password",
    {
      schema: {
        tags,
        security,
        ...op(
          "setPrincipalPassword",
          "Set a user's password",
          "Set or reset a user's password (stored as an argon2id hash); the user's sessions end.",
        ),
        params: IdParams(PrincipalIdSchema),
        body: SetPasswordBodySchema,
        response: { 204: { type: "null" }, ...errorResponses(403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await setPasswordAsAdministrator(
        db,
        callerOf(request),
        asIamId("principal", request.params.id),
        request.body.password,
      );
      return reply.status(204).send();
    },
  );

  listOfPrincipalRoute(app, db, session, {
    url: "/principals/:id/sessions",
    doc: op(
      "listPrincipalSessions",
      "List a principal's sessions",
      "List a principal's live sessions (never their tokens).",
    ),
    action: "sessions.list",
    list: listLiveSessions,
  });

  deleteOneRoute(app, db, session, {
    url: "/sessions/:id",
    doc: op(
      "revokeSession",
      "Revoke a session",
      "Revoke a session: every API process refuses it within a second.",
    ),
    action: "sessions.revoke",
    statuses: [403, 404],
    remove: revokeSessionStep,
  });
});
