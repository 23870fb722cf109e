/** Schemas of a user principal's external identities (issuer + subject) and their routes. */
import { Type, type Static } from "@sinclair/typebox";
import { Closed, DateTime, Nullable } from "./envelopes.js";
import { PrincipalIdSchema } from "./iam.js";

export const IssuerSchema = Type.String({
  minLength: 8,
  maxLength: 2000,
  pattern: "^https?://[^\\s\\x00-\\x1f\\x7f]+$",
  description: "The provider's issuer URL, exactly as its ID tokens state it (`iss`).",
});
export const SubjectSchema = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "^[^\\x00-\\x1f\\x7f]+$",
  description: "The provider's subject (`sub`) of the person: stable, never reassigned.",
});
const EmailSchema = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: "^[^\\s\\x00-\\x1f\\x7f]+$",
});

export const ExternalIdentitySchema = Closed({
  principalId: PrincipalIdSchema,
  issuer: Type.String(),
  subject: Type.String(),
  email: Nullable(Type.String()),
  createdAt: DateTime,
  lastSignInAt: Nullable(DateTime),
});
export type ExternalIdentityView = Static<typeof ExternalIdentitySchema>;

export const LinkIdentityBodySchema = Closed({
  issuer: IssuerSchema,
  subject: SubjectSchema,
  email: Type.Optional(EmailSchema),
});

export const UnlinkIdentityQuerySchema = Closed({ issuer: IssuerSchema, subject: SubjectSchema });
