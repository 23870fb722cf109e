-- Sign-in (issue 42): password credentials of users and server-side sessions.
--
-- A password is stored only as its argon2id hash (PHC string, salt and parameters inside), one
-- per user principal. A session is a random token held by the client (the `occ_session`
-- cookie, or the CLI's stored session); only the token's SHA-256 is stored. A session ends
-- when it is revoked (sign-out, an administrator, the principal's deletion), when it was idle
-- longer than `idle_seconds`, or at `expires_at`, whichever comes first — all decided by the
-- database clock. Deleting a principal ends its sessions (soft delete revokes them; a hard
-- delete cascades).

CREATE TABLE password_credentials (
  principal_id text PRIMARY KEY REFERENCES principals (id) ON DELETE CASCADE,
  hash text NOT NULL CONSTRAINT password_credentials_argon2id CHECK (hash LIKE '$argon2id$%' AND char_length(hash) <= 512),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id text PRIMARY KEY CONSTRAINT sessions_id_format CHECK (id ~ '^ses_[a-zA-Z0-9_-]{1,64}$'),
  token_sha256 text NOT NULL CONSTRAINT sessions_token_unique UNIQUE
    CONSTRAINT sessions_token_sha256_format CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  principal_id text NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  method text NOT NULL CONSTRAINT sessions_method CHECK (method IN ('password', 'oidc', 'google')),
  client_address text CONSTRAINT sessions_client_address_length CHECK (char_length(client_address) <= 100),
  user_agent text CONSTRAINT sessions_user_agent_length CHECK (char_length(user_agent) <= 300),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at timestamptz(3) NOT NULL DEFAULT now(),
  idle_seconds integer NOT NULL CONSTRAINT sessions_idle_positive CHECK (idle_seconds > 0),
  expires_at timestamptz(3) NOT NULL,
  revoked_at timestamptz(3),
  CONSTRAINT sessions_expiry_after_creation CHECK (expires_at > created_at)
);
CREATE INDEX sessions_principal ON sessions (principal_id);
