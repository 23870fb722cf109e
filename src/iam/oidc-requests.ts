/**
 * OIDC authorization requests in flight and CLI hand-offs (issue 42). Secrets presented by a
 * client (the `state`, the browser binding, the hand-off code) are stored as SHA-256 only;
 * each row is consumed (deleted) by the one request that presents it, so a replay finds
 * nothing. The PKCE verifier and the nonce are the server's own and never leave it.
 */
import { createHash } from "node:crypto";
import { SIGN_IN_PROVIDERS, type SignInProvider } from "../domain/signin/allow-list.js";
import { bool, branded, defineRow, integer, nullable, oneOf, text } from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { isPrincipalId, type PrincipalId } from "../domain/iam/ids.js";

/** The row {@link consumeOidcRequest} returns. */
const requestRow = defineRow("oidc_requests", {
  provider: oneOf(SIGN_IN_PROVIDERS),
  browserSha256: text,
  codeVerifier: text,
  nonce: text,
  returnTo: text,
  cliPort: nullable(integer),
  cliChallenge: nullable(text),
  expired: bool,
});

/** The row {@link consumeCliHandoff} returns. */
const handoffRow = defineRow("oidc_cli_handoffs", {
  principalId: branded(isPrincipalId, "a principal ID"),
  provider: oneOf(SIGN_IN_PROVIDERS),
  cliChallenge: text,
  expired: bool,
});

export const sha256Hex = (value: string): string =>
  createHash("sha256").update(value, "utf8").digest("hex");

export interface NewOidcRequest {
  readonly state: string;
  readonly provider: SignInProvider;
  readonly browserBinding: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly returnTo: string;
  readonly cli: { readonly port: number; readonly challenge: string } | null;
  readonly ttlSeconds: number;
}

export interface OidcRequest {
  readonly provider: SignInProvider;
  readonly browserSha256: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly returnTo: string;
  readonly cli: { readonly port: number; readonly challenge: string } | null;
  readonly expired: boolean;
}

export async function saveOidcRequest(q: Queryable, r: NewOidcRequest): Promise<void> {
  // Expired requests are swept as new ones arrive: the table holds minutes of sign-ins.
  await q.query("DELETE FROM oidc_requests WHERE expires_at < now() - interval '1 hour'");
  await q.query(
    `INSERT INTO oidc_requests (state_sha256, provider, browser_sha256, code_verifier, nonce,
       return_to, cli_port, cli_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))`,
    [
      sha256Hex(r.state),
      r.provider,
      sha256Hex(r.browserBinding),
      r.codeVerifier,
      r.nonce,
      r.returnTo,
      r.cli?.port ?? null,
      r.cli?.challenge ?? null,
      r.ttlSeconds,
    ],
  );
}

/** Removes and returns the request `state` names; `undefined` when there is none (any more). */
export async function consumeOidcRequest(
  q: Queryable,
  state: string,
): Promise<OidcRequest | undefined> {
  const res = await q.query(
    `DELETE FROM oidc_requests WHERE state_sha256 = $1
     RETURNING provider, browser_sha256, code_verifier, nonce, return_to, cli_port,
       cli_challenge, expires_at < now() AS expired`,
    [sha256Hex(state)],
  );
  const row = requestRow.decodeFirst(res.rows);
  if (row === undefined) return undefined;
  const { cliPort, cliChallenge, ...rest } = row;
  return {
    ...rest,
    cli:
      cliPort === null || cliChallenge === null ? null : { port: cliPort, challenge: cliChallenge },
  };
}

export async function saveCliHandoff(
  q: Queryable,
  h: {
    readonly code: string;
    readonly principalId: PrincipalId;
    readonly provider: SignInProvider;
    readonly challenge: string;
  },
): Promise<void> {
  await q.query("DELETE FROM oidc_cli_handoffs WHERE expires_at < now() - interval '1 hour'");
  await q.query(
    `INSERT INTO oidc_cli_handoffs (code_sha256, principal_id, provider, cli_challenge, expires_at)
     VALUES ($1, $2, $3, $4, now() + interval '60 seconds')`,
    [sha256Hex(h.code), h.principalId, h.provider, h.challenge],
  );
}

export interface CliHandoff {
  readonly principalId: PrincipalId;
  readonly provider: SignInProvider;
  readonly challenge: string;
  readonly expired: boolean;
}

/** Removes and returns the hand-off `code` names; `undefined` when there is none (any more). */
export async function consumeCliHandoff(
  q: Queryable,
  code: string,
): Promise<CliHandoff | undefined> {
  const res = await q.query(
    `DELETE FROM oidc_cli_handoffs WHERE code_sha256 = $1
     RETURNING principal_id, provider, cli_challenge, expires_at < now() AS expired`,
    [sha256Hex(code)],
  );
  const row = handoffRow.decodeFirst(res.rows);
  if (row === undefined) return undefined;
  return {
    principalId: row.principalId,
    provider: row.provider,
    challenge: row.cliChallenge,
    expired: row.expired,
  };
}
