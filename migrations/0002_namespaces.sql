-- The Installation singleton and platform Namespaces (control-plane.md §1, §4; placement.md §1,
-- §3, §8). Every rule the database can hold is held here, so that no code path — API, worker,
-- bootstrap, a hand-typed psql session — can break it, and simultaneous requests are decided
-- by PostgreSQL rather than by a read-then-write race.
--
-- Timestamps in the control-plane tables are timestamptz(3): millisecond precision, exactly
-- what a JavaScript Date holds, so a value read and sent back (a paging cursor, a lease
-- expiry) compares equal to the stored one.

-- The Installation: exactly one row (the primary key can only be `true`).
CREATE TABLE installation (
  singleton boolean PRIMARY KEY DEFAULT true CONSTRAINT installation_singleton CHECK (singleton),
  id text NOT NULL UNIQUE CONSTRAINT installation_id_format CHECK (id ~ '^inst_[a-z0-9-]{1,64}$'),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE namespaces (
  -- Server IDs are `ns_` + a lowercase UUIDv4; the preprovisioned binding accepts this wider
  -- pattern, which contains the server one.
  id text PRIMARY KEY CONSTRAINT namespaces_id_format CHECK (id ~ '^ns_[a-zA-Z0-9_-]{1,60}$'),
  -- Unique for ever, tombstones included: a deleted Namespace's name is never reused.
  name text NOT NULL CONSTRAINT namespaces_name_unique UNIQUE
    CONSTRAINT namespaces_name_format
      CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  placement_mode text NOT NULL
    CONSTRAINT namespaces_placement_mode CHECK (placement_mode IN ('managed', 'external', 'preprovisioned')),
  -- The operator-owned namespace an administrator selected: a DNS-1123 label that is not a
  -- reserved name (placement.md §8; the controller's own namespace depends on configuration
  -- and is refused by the API).
  existing_namespace text
    CONSTRAINT namespaces_existing_namespace_format CHECK (
      char_length(existing_namespace) <= 63
      AND existing_namespace ~ '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'
      AND existing_namespace <> 'default'
      AND existing_namespace !~ '^(kube-|openshift-|oce-)'
    ),
  status text NOT NULL DEFAULT 'provisioning'
    CONSTRAINT namespaces_status CHECK (status IN ('provisioning', 'ready', 'failed', 'deleting')),
  -- The latest reason the Namespace is not ready (or why it failed): a stable code, a
  -- sanitized message and when that code was first reported. All three or none.
  status_code text CONSTRAINT namespaces_status_code_format CHECK (status_code ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  status_reason text
    CONSTRAINT namespaces_status_reason_length CHECK (char_length(status_reason) BETWEEN 1 AND 256),
  status_since timestamptz(3),
  -- The Kubernetes namespace the tenant is bound to and its metadata.uid, recorded when the
  -- worker first creates or binds it (placement.md §3). Both or neither; written once.
  kubernetes_namespace text
    CONSTRAINT namespaces_kubernetes_namespace_format CHECK (
      char_length(kubernetes_namespace) <= 63
      AND kubernetes_namespace ~ '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'
    ),
  kubernetes_uid text
    CONSTRAINT namespaces_kubernetes_uid_format
      CHECK (kubernetes_uid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  -- The tombstone: set when teardown completed. Reads answer 404 from then on.
  deleted_at timestamptz(3),

  CONSTRAINT namespaces_external_selection
    CHECK ((placement_mode = 'external') = (existing_namespace IS NOT NULL)),
  CONSTRAINT namespaces_external_binding
    CHECK (kubernetes_namespace IS NULL OR existing_namespace IS NULL OR kubernetes_namespace = existing_namespace),
  CONSTRAINT namespaces_binding_complete
    CHECK ((kubernetes_namespace IS NULL) = (kubernetes_uid IS NULL)),
  CONSTRAINT namespaces_status_reason_complete
    CHECK ((status_code IS NULL) = (status_reason IS NULL) AND (status_code IS NULL) = (status_since IS NULL)),
  CONSTRAINT namespaces_ready_is_bound
    CHECK (status <> 'ready' OR (kubernetes_uid IS NOT NULL AND status_code IS NULL)),
  CONSTRAINT namespaces_failed_has_reason CHECK (status <> 'failed' OR status_code IS NOT NULL),
  CONSTRAINT namespaces_tombstone_was_deleting CHECK (deleted_at IS NULL OR status = 'deleting')
);

-- One live claim per selected namespace. A failed or deleting Namespace still holds its claim;
-- only the tombstone releases it. Being an index, it decides simultaneous inserts: exactly one
-- commits, whatever the isolation level.
CREATE UNIQUE INDEX namespaces_existing_namespace_claim
  ON namespaces (existing_namespace)
  WHERE existing_namespace IS NOT NULL AND deleted_at IS NULL;

-- A Kubernetes namespace is bound to at most one live tenant (quality.md invariants).
CREATE UNIQUE INDEX namespaces_kubernetes_namespace_bound
  ON namespaces (kubernetes_namespace)
  WHERE kubernetes_namespace IS NOT NULL AND deleted_at IS NULL;

CREATE INDEX namespaces_listing ON namespaces (created_at, id) WHERE deleted_at IS NULL;

-- The update rules no CHECK can express, because they compare the old row with the new one:
-- identity and the selection are immutable (there is no update path, and moving a tenant would
-- orphan its objects); the binding is written once (a different UID means the namespace was
-- recreated, which fails closed rather than being overwritten); the status follows
-- provisioning → ready | failed, any → deleting; deleting is final; a tombstone is frozen.
CREATE FUNCTION namespaces_guard_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NOT NULL THEN
    RAISE EXCEPTION 'namespace % is tombstoned and cannot change', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_tombstone_frozen';
  END IF;
  IF NEW.id IS DISTINCT FROM OLD.id
     OR NEW.name IS DISTINCT FROM OLD.name
     OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
    RAISE EXCEPTION 'namespace % identity (id, name, created_at) is immutable', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_identity_immutable';
  END IF;
  IF NEW.existing_namespace IS DISTINCT FROM OLD.existing_namespace
     OR NEW.placement_mode IS DISTINCT FROM OLD.placement_mode THEN
    RAISE EXCEPTION 'namespace % placement selection is immutable', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_selection_immutable';
  END IF;
  IF (OLD.kubernetes_uid IS NOT NULL AND NEW.kubernetes_uid IS DISTINCT FROM OLD.kubernetes_uid)
     OR (OLD.kubernetes_namespace IS NOT NULL
         AND NEW.kubernetes_namespace IS DISTINCT FROM OLD.kubernetes_namespace) THEN
    RAISE EXCEPTION 'namespace % binding is written once', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_binding_write_once';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
       (OLD.status = 'provisioning' AND NEW.status IN ('ready', 'failed'))
       OR (OLD.status <> 'deleting' AND NEW.status = 'deleting')
     ) THEN
    RAISE EXCEPTION 'namespace % cannot move from % to %', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_status_transition';
  END IF;
  IF NEW.deleted_at IS NOT NULL AND OLD.status <> 'deleting' THEN
    RAISE EXCEPTION 'namespace % must be deleting before it is tombstoned', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_status_transition';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER namespaces_guard_update
  BEFORE UPDATE ON namespaces
  FOR EACH ROW EXECUTE FUNCTION namespaces_guard_update();

-- Rows are tombstoned, never deleted: the tombstone is what keeps the name retired.
CREATE FUNCTION namespaces_refuse_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'namespace % cannot be deleted; it is tombstoned instead', OLD.id
    USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_never_deleted';
END;
$$;

CREATE TRIGGER namespaces_refuse_delete
  BEFORE DELETE ON namespaces
  FOR EACH ROW EXECUTE FUNCTION namespaces_refuse_delete();
