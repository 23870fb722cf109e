-- The lifecycle after placement (lifecycle.md §2–§4): a bound Namespace is reconciled for as
-- long as it lives, so it can leave `ready` for `degraded` (bound, but something OCC must not
-- repair is wrong) and come back by itself; a refused or degraded one comes back only through an
-- administrator's retry. Every other rule of 0002 is kept as it was.

ALTER TABLE namespaces
  DROP CONSTRAINT namespaces_status,
  ADD CONSTRAINT namespaces_status
    CHECK (status IN ('provisioning', 'ready', 'degraded', 'failed', 'deleting')),
  -- `degraded` is reported only for a Namespace that was bound, and always says why.
  ADD CONSTRAINT namespaces_degraded_is_bound
    CHECK (status <> 'degraded' OR (kubernetes_uid IS NOT NULL AND status_code IS NOT NULL)),
  -- When the last pass over the Namespace reached a verdict (ready, degraded, pending, failed),
  -- and the metadata.uid of the Kubernetes namespace it saw (NULL: the namespace was absent or
  -- not read). Shown by the API, so an operator can tell a stale status from a fresh one.
  ADD COLUMN last_reconciled_at timestamptz(3),
  ADD COLUMN observed_kubernetes_uid text
    CONSTRAINT namespaces_observed_kubernetes_uid_format
      CHECK (observed_kubernetes_uid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  -- Set by an administrator's retry (failed | degraded → provisioning) until the retried pass
  -- records what it observed: the retry is the consent to place the namespace as it is now,
  -- re-verified like a first placement — a vanished managed namespace is recreated, a recreated
  -- one is bound under its new UID. Without it, a recorded UID is never replaced.
  ADD COLUMN retry_requested_at timestamptz(3),
  ADD CONSTRAINT namespaces_retry_is_provisioning
    CHECK (retry_requested_at IS NULL OR status IN ('provisioning', 'deleting'));

-- The update rules, as in 0002, with the lifecycle's transitions:
--   provisioning → ready | failed;  ready → degraded;  degraded → ready;
--   failed → provisioning and degraded → provisioning (an administrator's retry);
--   any non-deleting → deleting;  deleting is final;  a tombstone is frozen.
-- The binding: `kubernetes_namespace` is written once, for ever. `kubernetes_uid` is written
-- once too, except that it may be replaced by another UID in an update whose OLD.status is
-- `provisioning` or `degraded`. That is the one hook for both cases where a namespace of the
-- same name legitimately has a new UID: a managed namespace recreated by OCC after an
-- administrator's retry (degraded → provisioning, then the new UID while provisioning), and the
-- preprovisioned rebind (ready → degraded, then the new UID and ready, in one transaction). A
-- ready Namespace's UID never changes, and a UID is never cleared.
CREATE OR REPLACE FUNCTION namespaces_guard_update() RETURNS trigger
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
  IF (OLD.kubernetes_namespace IS NOT NULL
      AND NEW.kubernetes_namespace IS DISTINCT FROM OLD.kubernetes_namespace)
     OR (OLD.kubernetes_uid IS NOT NULL AND NEW.kubernetes_uid IS DISTINCT FROM OLD.kubernetes_uid
         AND (NEW.kubernetes_uid IS NULL OR OLD.status NOT IN ('provisioning', 'degraded'))) THEN
    RAISE EXCEPTION 'namespace % binding is written once', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_binding_write_once';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
       (OLD.status = 'provisioning' AND NEW.status IN ('ready', 'failed'))
       OR (OLD.status = 'ready' AND NEW.status = 'degraded')
       OR (OLD.status = 'degraded' AND NEW.status = 'ready')
       OR (OLD.status IN ('failed', 'degraded') AND NEW.status = 'provisioning')
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
