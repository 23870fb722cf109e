-- The row rules of the two tables every tenant writes on its way to ready — namespaces and
-- work_items — held by BEFORE INSERT OR UPDATE triggers instead of CHECK constraints (issue 39,
-- P1). The rules, their names and the SQLSTATE are unchanged: a broken rule raises
-- check_violation (23514) naming the same constraint as before, so src/store/sql-errors.ts and
-- every caller classify the refusal exactly as they did.
--
-- Why: PostgreSQL 15 prepares every CHECK of a table afresh in each statement that writes it
-- (the stored expression is parsed and planned again at executor start), prepared statement or
-- not. The worker's one statement per pass writes work_items twice and namespaces once, the
-- API's create writes both: 33 rule expressions prepared per statement, about 4 µs each on this
-- machine, for rows whose values take well under a microsecond to test. A PL/pgSQL trigger keeps
-- its compiled body for the session; namespaces already had one for its update rules, so there
-- the rules cost nothing but their own tests (UPDATE of one row: 222 µs → 147 µs; none at all:
-- 140 µs, pgbench on one core).
--
-- The vocabularies (namespaces_status, namespaces_placement_mode, work_items_state) stay CHECK
-- constraints: they are what a reader of the schema looks for, and the tests compare them with
-- the TypeScript vocabularies. A trigger's rule has the CHECK's meaning: it fails only when the
-- expression is false (NULL passes), and it tests the row as written, after the update rules.

-- Raises the refusal a CHECK constraint would: the SQLSTATE, the table and the rule's name.
CREATE FUNCTION occ_rule_violated(p_table text, p_rule text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'new row for relation "%" violates check constraint "%"', p_table, p_rule
    USING ERRCODE = 'check_violation', TABLE = p_table, CONSTRAINT = p_rule;
END;
$$;

ALTER TABLE namespaces
  DROP CONSTRAINT namespaces_binding_complete,
  DROP CONSTRAINT namespaces_degraded_is_bound,
  DROP CONSTRAINT namespaces_existing_namespace_format,
  DROP CONSTRAINT namespaces_external_binding,
  DROP CONSTRAINT namespaces_external_selection,
  DROP CONSTRAINT namespaces_failed_has_reason,
  DROP CONSTRAINT namespaces_id_format,
  DROP CONSTRAINT namespaces_kubernetes_namespace_format,
  DROP CONSTRAINT namespaces_kubernetes_uid_format,
  DROP CONSTRAINT namespaces_name_format,
  DROP CONSTRAINT namespaces_observed_kubernetes_uid_format,
  DROP CONSTRAINT namespaces_ready_is_bound,
  DROP CONSTRAINT namespaces_retry_is_provisioning,
  DROP CONSTRAINT namespaces_status_code_format,
  DROP CONSTRAINT namespaces_status_reason_complete,
  DROP CONSTRAINT namespaces_status_reason_length,
  DROP CONSTRAINT namespaces_tombstone_was_deleting;

-- The update rules of 0008, unchanged, then the row rules, each in name order as PostgreSQL
-- tests CHECK constraints. The rules on identity and selection are tested on insert only: the
-- update rules keep those columns as they were inserted.
CREATE FUNCTION namespaces_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
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
  ELSE
    -- Identity and selection cannot change (above), so they are tested once, when inserted.
    IF NOT (char_length(NEW.existing_namespace) <= 63
            AND NEW.existing_namespace ~ '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'
            AND NEW.existing_namespace <> 'default'
            AND NEW.existing_namespace !~ '^(kube-|openshift-|oce-)') THEN
      PERFORM occ_rule_violated('namespaces', 'namespaces_existing_namespace_format');
    END IF;
    IF NOT ((NEW.placement_mode = 'external') = (NEW.existing_namespace IS NOT NULL)) THEN
      PERFORM occ_rule_violated('namespaces', 'namespaces_external_selection');
    END IF;
    IF NOT (NEW.id ~ '^ns_[a-zA-Z0-9_-]{1,60}$') THEN
      PERFORM occ_rule_violated('namespaces', 'namespaces_id_format');
    END IF;
    IF NOT (char_length(NEW.name) BETWEEN 1 AND 200 AND NEW.name !~ '[[:cntrl:]]') THEN
      PERFORM occ_rule_violated('namespaces', 'namespaces_name_format');
    END IF;
  END IF;
  IF NOT ((NEW.kubernetes_namespace IS NULL) = (NEW.kubernetes_uid IS NULL)) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_binding_complete');
  END IF;
  IF NOT (NEW.status <> 'degraded' OR (NEW.kubernetes_uid IS NOT NULL AND NEW.status_code IS NOT NULL)) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_degraded_is_bound');
  END IF;
  IF NOT (NEW.kubernetes_namespace IS NULL OR NEW.existing_namespace IS NULL
          OR NEW.kubernetes_namespace = NEW.existing_namespace) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_external_binding');
  END IF;
  IF NOT (NEW.status <> 'failed' OR NEW.status_code IS NOT NULL) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_failed_has_reason');
  END IF;
  IF NOT (char_length(NEW.kubernetes_namespace) <= 63
          AND NEW.kubernetes_namespace ~ '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_kubernetes_namespace_format');
  END IF;
  IF NOT (NEW.kubernetes_uid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_kubernetes_uid_format');
  END IF;
  IF NOT (NEW.observed_kubernetes_uid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_observed_kubernetes_uid_format');
  END IF;
  IF NOT (NEW.status <> 'ready' OR (NEW.kubernetes_uid IS NOT NULL AND NEW.status_code IS NULL)) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_ready_is_bound');
  END IF;
  IF NOT (NEW.retry_requested_at IS NULL OR NEW.status IN ('provisioning', 'deleting')) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_retry_is_provisioning');
  END IF;
  IF NOT (NEW.status_code ~ '^[A-Z][A-Z0-9_]{0,63}$') THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_status_code_format');
  END IF;
  IF NOT ((NEW.status_code IS NULL) = (NEW.status_reason IS NULL)
          AND (NEW.status_code IS NULL) = (NEW.status_since IS NULL)) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_status_reason_complete');
  END IF;
  IF NOT (char_length(NEW.status_reason) BETWEEN 1 AND 256) THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_status_reason_length');
  END IF;
  IF NOT (NEW.deleted_at IS NULL OR NEW.status = 'deleting') THEN
    PERFORM occ_rule_violated('namespaces', 'namespaces_tombstone_was_deleting');
  END IF;
  RETURN NEW;
END;
$$;

DROP TRIGGER namespaces_guard_update ON namespaces;
DROP FUNCTION namespaces_guard_update();
CREATE TRIGGER namespaces_guard
  BEFORE INSERT OR UPDATE ON namespaces
  FOR EACH ROW EXECUTE FUNCTION namespaces_guard();

ALTER TABLE work_items
  DROP CONSTRAINT work_items_actor_length,
  DROP CONSTRAINT work_items_attempt_count,
  DROP CONSTRAINT work_items_claim_consistent,
  DROP CONSTRAINT work_items_claimed_by_length,
  DROP CONSTRAINT work_items_deadline_after_creation,
  DROP CONSTRAINT work_items_finished_consistent,
  DROP CONSTRAINT work_items_idempotency_key_length,
  DROP CONSTRAINT work_items_kind_format,
  DROP CONSTRAINT work_items_last_code_format,
  DROP CONSTRAINT work_items_last_message_length,
  DROP CONSTRAINT work_items_max_attempts,
  DROP CONSTRAINT work_items_pending_count,
  DROP CONSTRAINT work_items_subject_length;

CREATE FUNCTION work_items_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (char_length(NEW.actor) BETWEEN 1 AND 200) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_actor_length');
  END IF;
  IF NOT (NEW.attempt_count >= 0) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_attempt_count');
  END IF;
  IF NOT ((NEW.state = 'claimed') = (NEW.claim_token IS NOT NULL)
          AND (NEW.claim_token IS NULL) = (NEW.claimed_by IS NULL)
          AND (NEW.claim_token IS NULL) = (NEW.lease_expires_at IS NULL)) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_claim_consistent');
  END IF;
  IF NOT (char_length(NEW.claimed_by) BETWEEN 1 AND 200) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_claimed_by_length');
  END IF;
  IF NOT (NEW.deadline_at >= NEW.created_at) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_deadline_after_creation');
  END IF;
  IF NOT ((NEW.state IN ('succeeded', 'failed_permanent')) = (NEW.finished_at IS NOT NULL)) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_finished_consistent');
  END IF;
  IF NOT (char_length(NEW.idempotency_key) BETWEEN 1 AND 300) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_idempotency_key_length');
  END IF;
  IF NOT (NEW.kind ~ '^[a-z][a-z0-9_.-]{0,62}$') THEN
    PERFORM occ_rule_violated('work_items', 'work_items_kind_format');
  END IF;
  IF NOT (NEW.last_code ~ '^[A-Z][A-Z0-9_]{0,63}$') THEN
    PERFORM occ_rule_violated('work_items', 'work_items_last_code_format');
  END IF;
  IF NOT (char_length(NEW.last_message) <= 256) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_last_message_length');
  END IF;
  IF NOT (NEW.max_attempts >= 1) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_max_attempts');
  END IF;
  IF NOT (NEW.pending_count >= 0) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_pending_count');
  END IF;
  IF NOT (char_length(NEW.subject) BETWEEN 1 AND 200) THEN
    PERFORM occ_rule_violated('work_items', 'work_items_subject_length');
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER work_items_guard
  BEFORE INSERT OR UPDATE ON work_items
  FOR EACH ROW EXECUTE FUNCTION work_items_guard();
