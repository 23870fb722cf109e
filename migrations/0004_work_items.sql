-- The work queue (control-plane.md §5). Generic: `kind` says what to do, `subject` is an
-- opaque key naming what it is done to, and the subject is also the lane — at most one item
-- per subject is claimed at any time. Nothing here knows what a Namespace is.
CREATE TABLE work_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Deterministic, chosen by the caller (e.g. `namespace:<id>:ready`): enqueueing the same key
  -- twice yields one row.
  idempotency_key text NOT NULL CONSTRAINT work_items_idempotency_key UNIQUE
    CONSTRAINT work_items_idempotency_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 300),
  kind text NOT NULL CONSTRAINT work_items_kind_format CHECK (kind ~ '^[a-z][a-z0-9_.-]{0,62}$'),
  subject text NOT NULL CONSTRAINT work_items_subject_length CHECK (char_length(subject) BETWEEN 1 AND 200),
  -- The frozen actor: whoever asked for the work, re-authorized before it runs.
  actor text NOT NULL CONSTRAINT work_items_actor_length CHECK (char_length(actor) BETWEEN 1 AND 200),
  state text NOT NULL DEFAULT 'queued'
    CONSTRAINT work_items_state CHECK (state IN ('queued', 'claimed', 'succeeded', 'failed_permanent')),
  -- Claims spent; a pending outcome refunds its claim, so this counts real attempts.
  attempt_count integer NOT NULL DEFAULT 0 CONSTRAINT work_items_attempt_count CHECK (attempt_count >= 0),
  max_attempts integer NOT NULL CONSTRAINT work_items_max_attempts CHECK (max_attempts >= 1),
  -- Consecutive pending outcomes, which drive the pending backoff.
  pending_count integer NOT NULL DEFAULT 0 CONSTRAINT work_items_pending_count CHECK (pending_count >= 0),
  available_at timestamptz(3) NOT NULL,
  -- The convergence deadline: an item still pending or failing after it fails permanently.
  deadline_at timestamptz(3) NOT NULL,
  -- The fence: every change by a claimer names the token and needs an unexpired lease.
  claim_token uuid,
  claimed_by text CONSTRAINT work_items_claimed_by_length CHECK (char_length(claimed_by) BETWEEN 1 AND 200),
  lease_expires_at timestamptz(3),
  -- The last outcome's stable code and sanitized message, for operators and metrics.
  last_code text CONSTRAINT work_items_last_code_format CHECK (last_code ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  last_message text CONSTRAINT work_items_last_message_length CHECK (char_length(last_message) <= 256),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  finished_at timestamptz(3),

  CONSTRAINT work_items_claim_consistent CHECK (
    (state = 'claimed') = (claim_token IS NOT NULL)
    AND (claim_token IS NULL) = (claimed_by IS NULL)
    AND (claim_token IS NULL) = (lease_expires_at IS NULL)
  ),
  CONSTRAINT work_items_finished_consistent
    CHECK ((state IN ('succeeded', 'failed_permanent')) = (finished_at IS NOT NULL)),
  CONSTRAINT work_items_deadline_after_creation CHECK (deadline_at >= created_at)
);

-- The lane guarantee, held by the database: two claims of one subject cannot both commit.
CREATE UNIQUE INDEX work_items_one_claim_per_lane ON work_items (subject) WHERE state = 'claimed';
-- What claiming scans: eligible queued items in age order, and leases that may have expired.
CREATE INDEX work_items_queued ON work_items (available_at, created_at, id) WHERE state = 'queued';
CREATE INDEX work_items_leases ON work_items (lease_expires_at) WHERE state = 'claimed';
