-- Identity and authorization (control-plane.md §3). Policy is read from these tables for every
-- decision, so they hold exactly what a decision needs: who (principals, API keys), what they
-- may do (roles of permissions, bound Installation-wide or to one Namespace), and what is
-- denied regardless (restrictions). Rules about which permissions count at which scope
-- (`installation:administer` and `namespace:create` only Installation-wide) belong to the
-- evaluator, not to the schema: a role may hold them and be bound to a Namespace, where they
-- simply do not apply.

-- The permission vocabulary, defined once for every table that names a permission.
CREATE DOMAIN permission_action AS text
  CHECK (VALUE IN ('create', 'read', 'update', 'delete', 'deploy', 'operate', 'administer'));
CREATE DOMAIN permission_kind AS text
  CHECK (VALUE IN ('installation', 'namespace', 'configuration', 'secret', 'service_account',
                   'agent', 'agent_revision'));

-- Users and service principals. Soft-deleted so that the frozen actor of queued work and of
-- audit events still names a row; a deleted actor is refused at re-authorization.
CREATE TABLE principals (
  id text PRIMARY KEY CONSTRAINT principals_id_format CHECK (id ~ '^prn_[a-zA-Z0-9_-]{1,64}$'),
  kind text NOT NULL CONSTRAINT principals_kind CHECK (kind IN ('user', 'service')),
  name text NOT NULL
    CONSTRAINT principals_name_format CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at timestamptz(3)
);
CREATE UNIQUE INDEX principals_live_name ON principals (name) WHERE deleted_at IS NULL;

-- API keys: the secret is shown once and only its SHA-256 is stored. Keys are ≥ 32 random
-- bytes, so a fast unsalted hash cannot be brute-forced; the non-secret prefix finds the row
-- and the hash is then compared in constant time by the application.
CREATE TABLE api_keys (
  id text PRIMARY KEY CONSTRAINT api_keys_id_format CHECK (id ~ '^key_[a-zA-Z0-9_-]{1,64}$'),
  principal_id text NOT NULL REFERENCES principals (id),
  prefix text NOT NULL CONSTRAINT api_keys_prefix_unique UNIQUE
    CONSTRAINT api_keys_prefix_format CHECK (prefix ~ '^[A-Za-z0-9_]{8,40}$'),
  secret_sha256 text NOT NULL CONSTRAINT api_keys_secret_sha256_format CHECK (secret_sha256 ~ '^[0-9a-f]{64}$'),
  description text NOT NULL DEFAULT ''
    CONSTRAINT api_keys_description_length CHECK (char_length(description) <= 200),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3),
  revoked_at timestamptz(3),
  last_used_at timestamptz(3),
  CONSTRAINT api_keys_expiry_after_creation CHECK (expires_at IS NULL OR expires_at > created_at)
);
CREATE INDEX api_keys_principal ON api_keys (principal_id);

CREATE TABLE roles (
  id text PRIMARY KEY CONSTRAINT roles_id_format CHECK (id ~ '^role_[a-zA-Z0-9_-]{1,64}$'),
  name text NOT NULL CONSTRAINT roles_name_unique UNIQUE
    CONSTRAINT roles_name_format CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  description text NOT NULL DEFAULT ''
    CONSTRAINT roles_description_length CHECK (char_length(description) <= 1000),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

-- A role is a set of (action, kind) permissions.
CREATE TABLE role_permissions (
  role_id text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  action permission_action NOT NULL,
  kind permission_kind NOT NULL,
  PRIMARY KEY (role_id, action, kind)
);

-- A binding gives a principal a role, Installation-wide (namespace_id NULL) or in one
-- Namespace. A role in use cannot be deleted (no cascade): unbinding is an explicit act.
CREATE TABLE bindings (
  id text PRIMARY KEY CONSTRAINT bindings_id_format CHECK (id ~ '^bnd_[a-zA-Z0-9_-]{1,64}$'),
  principal_id text NOT NULL REFERENCES principals (id),
  role_id text NOT NULL REFERENCES roles (id),
  namespace_id text REFERENCES namespaces (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT bindings_unique UNIQUE NULLS NOT DISTINCT (principal_id, role_id, namespace_id)
);
CREATE INDEX bindings_principal ON bindings (principal_id);
CREATE INDEX bindings_namespace ON bindings (namespace_id) WHERE namespace_id IS NOT NULL;

-- A restriction denies every request it matches, whatever the bindings allow. Each NULL
-- column matches anything; at least one must be set, so no single row can deny everything to
-- everyone (which would also lock out the administrators who could remove it).
CREATE TABLE restrictions (
  id text PRIMARY KEY CONSTRAINT restrictions_id_format CHECK (id ~ '^rst_[a-zA-Z0-9_-]{1,64}$'),
  principal_id text REFERENCES principals (id),
  namespace_id text REFERENCES namespaces (id),
  action permission_action,
  kind permission_kind,
  description text NOT NULL DEFAULT ''
    CONSTRAINT restrictions_description_length CHECK (char_length(description) <= 1000),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT restrictions_not_universal CHECK (num_nonnulls(principal_id, namespace_id, action, kind) >= 1)
);
CREATE INDEX restrictions_principal ON restrictions (principal_id) WHERE principal_id IS NOT NULL;
CREATE INDEX restrictions_namespace ON restrictions (namespace_id) WHERE namespace_id IS NOT NULL;
