-- Resources inside a platform Namespace (control-plane.md §1, §4; drivers.md §1–3):
-- Configurations and Secrets, whose content lives in one Kubernetes object each in the bound
-- namespace, and ServiceAccounts, which are records only. PostgreSQL holds the metadata; every
-- row pins where its object lives (the Kubernetes namespace and its metadata.uid) and the
-- object's own UID, so a later resolution to another namespace, a recreated namespace or a
-- recreated object is refused rather than followed. Rows are deleted outright with their
-- object; a live row blocks the deletion of its Namespace (DELETE /namespaces refuses).

CREATE TABLE configurations (
  id text PRIMARY KEY
    CONSTRAINT configurations_id_format
      CHECK (id ~ '^cfg_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  kind text NOT NULL CONSTRAINT configurations_kind CHECK (kind IN ('agent')),
  generation integer NOT NULL CONSTRAINT configurations_generation CHECK (generation >= 1),
  kubernetes_namespace text NOT NULL,
  namespace_uid text NOT NULL,
  object_name text NOT NULL,
  object_uid text NOT NULL,
  resource_version text NOT NULL,
  -- SHA-256 of the JSON document as stored in the ConfigMap: a hand edit is detected on read.
  content_sha256 text NOT NULL CONSTRAINT configurations_digest CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX configurations_by_namespace ON configurations (namespace_id, created_at, id);

CREATE TABLE secrets (
  id text PRIMARY KEY
    CONSTRAINT secrets_id_format
      CHECK (id ~ '^sec_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL
    CONSTRAINT secrets_name_format CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  version integer NOT NULL CONSTRAINT secrets_version CHECK (version >= 1),
  kubernetes_namespace text NOT NULL,
  namespace_uid text NOT NULL,
  object_name text NOT NULL,
  object_uid text NOT NULL,
  resource_version text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT secrets_name_unique UNIQUE (namespace_id, name)
);
CREATE INDEX secrets_by_namespace ON secrets (namespace_id, created_at, id);

CREATE TABLE service_accounts (
  id text PRIMARY KEY
    CONSTRAINT service_accounts_id_format
      CHECK (id ~ '^sa_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL
    CONSTRAINT service_accounts_name_format CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  credential_kind text CONSTRAINT service_accounts_credential_kind CHECK (credential_kind IN ('api_key', 'oauth_token')),
  -- The Secret holding the credential: in the same Namespace (the API checks), never deleted
  -- while referenced.
  credential_secret_id text REFERENCES secrets (id) ON DELETE RESTRICT,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT service_accounts_name_unique UNIQUE (namespace_id, name),
  CONSTRAINT service_accounts_credential_complete
    CHECK ((credential_kind IS NULL) = (credential_secret_id IS NULL))
);
CREATE INDEX service_accounts_by_namespace ON service_accounts (namespace_id, created_at, id);
