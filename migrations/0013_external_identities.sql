-- External identities (issue 42): a user principal may be reached through identities of
-- external OpenID Providers (OIDC, Google), each named by its issuer and the provider's
-- subject, unique. A sign-in finds the principal by (issuer, subject) only, never by e-mail:
-- an e-mail is shown and audited, but it is not an identity.
CREATE TABLE external_identities (
  issuer text NOT NULL
    CONSTRAINT external_identities_issuer_format CHECK (issuer ~ '^https?://[^[:space:][:cntrl:]]+$' AND char_length(issuer) <= 2000),
  subject text NOT NULL
    CONSTRAINT external_identities_subject_format CHECK (char_length(subject) BETWEEN 1 AND 255 AND subject !~ '[[:cntrl:]]'),
  principal_id text NOT NULL REFERENCES principals (id),
  email text
    CONSTRAINT external_identities_email_format CHECK (email IS NULL OR (char_length(email) BETWEEN 3 AND 320 AND email !~ '[[:cntrl:][:space:]]')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz(3),
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX external_identities_principal ON external_identities (principal_id);

-- Bindings made by `auth.oidc.groupRoles` at a sign-in (not by an administrator). Only these
-- are removed when the person's groups no longer call for them; removing the binding by hand
-- removes the mark with it.
CREATE TABLE group_bindings (
  binding_id text PRIMARY KEY REFERENCES bindings (id) ON DELETE CASCADE,
  principal_id text NOT NULL REFERENCES principals (id),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX group_bindings_principal ON group_bindings (principal_id);

-- Authorization requests in flight (authorization code flow with PKCE): one row per redirect
-- to the provider, found by the SHA-256 of its `state` and consumed (deleted) by the one
-- callback that presents it, so a replayed callback finds nothing. The PKCE verifier and the
-- nonce never leave the server; `browser_sha256` binds the request to the browser that
-- started it (a cookie), so a callback forged into another browser is refused.
CREATE TABLE oidc_requests (
  state_sha256 text PRIMARY KEY CONSTRAINT oidc_requests_state_format CHECK (state_sha256 ~ '^[0-9a-f]{64}$'),
  provider text NOT NULL CONSTRAINT oidc_requests_provider CHECK (provider IN ('oidc', 'google')),
  browser_sha256 text NOT NULL CONSTRAINT oidc_requests_browser_format CHECK (browser_sha256 ~ '^[0-9a-f]{64}$'),
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  return_to text NOT NULL CONSTRAINT oidc_requests_return_to CHECK (return_to ~ '^/' AND char_length(return_to) <= 2000),
  -- `occ login --provider …`: the CLI's loopback port and the S256 challenge of its verifier.
  cli_port integer CONSTRAINT oidc_requests_cli_port CHECK (cli_port IS NULL OR cli_port BETWEEN 1024 AND 65535),
  cli_challenge text CONSTRAINT oidc_requests_cli_challenge CHECK (cli_challenge IS NULL OR cli_challenge ~ '^[A-Za-z0-9_-]{43}$'),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  CONSTRAINT oidc_requests_cli_both CHECK ((cli_port IS NULL) = (cli_challenge IS NULL))
);
CREATE INDEX oidc_requests_expiry ON oidc_requests (expires_at);

-- A completed sign-in waiting for the CLI that started it: the loopback receives a one-time
-- code (its SHA-256 stored here) and exchanges it, with the verifier of `cli_challenge`, for
-- a session. Consumed on first use; valid for a minute.
CREATE TABLE oidc_cli_handoffs (
  code_sha256 text PRIMARY KEY CONSTRAINT oidc_cli_handoffs_code_format CHECK (code_sha256 ~ '^[0-9a-f]{64}$'),
  principal_id text NOT NULL REFERENCES principals (id),
  provider text NOT NULL CONSTRAINT oidc_cli_handoffs_provider CHECK (provider IN ('oidc', 'google')),
  cli_challenge text NOT NULL,
  expires_at timestamptz(3) NOT NULL
);
