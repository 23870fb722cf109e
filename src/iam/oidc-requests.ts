/**
 * OIDC authorization requests in flight and CLI hand-offs (issue 42). Secrets presented by a
 * client (the `state`, the browser binding, the hand-off code) are stored as SHA-256 only;
 * each row is consumed (deleted) by the one request that presents it, so a replay finds
 * nothing. The PKCE verifier and the nonce are the server's own and never leave it.
 */
import { createHash } from "node:crypto";
import type { SignInProvider } from "../domain/signin/allow-list.js";
import type { Queryable } from "../store/db.js";
import { asIamId, type PrincipalId } from "../domain/iam/ids.js";

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
  const res = await q.query<{
    provider: SignInProvider;
    browser_sha256: string;
    code_verifier: string;
    nonce: string;
    return_to: string;
    cli_port: number | null;
    cli_challenge: string | null;
    expired: boolean;
  }>(
    `DELETE FROM oidc_requests WHERE state_sha256 = $1
     RETURNING provider, browser_sha256, code_verifier, nonce, return_to, cli_port,
       cli_challenge, expires_at < now() AS expired`,
    [sha256Hex(state)],
  );
  const row = res.rows[0];
  if (row === undefined) return undefined;
  return {
    provider: row.provider,
    browserSha256: row.browser_sha256,
    codeVerifier: row.code_verifier,
    nonce: row.nonce,
    returnTo: row.return_to,
    cli:
      row.cli_port === null || row.cli_challenge === null
        ? null
        : { port: row.cli_port, challenge: row.cli_challenge },
    expired: row.expired,
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
  const res = await q.query<{
    principal_id: string;
    provider: SignInProvider;
    cli_challenge: string;
    expired: boolean;
  }>(
    `DELETE FROM oidc_cli_handoffs WHERE code_sha256 = $1
     RETURNING principal_id, provider, cli_challenge, expires_at < now() AS expired`,
    [sha256Hex(code)],
  );
  const row = res.rows[0];
  if (row === undefined) return undefined;
  return {
    principalId: asIamId("principal", row.principal_id),
    provider: row.provider,
    challenge: row.cli_challenge,
    expired: row.expired,
  };
}
