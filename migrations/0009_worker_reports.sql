-- What each worker process last said about itself, for `GET /workers` and `occ status`: when
-- it started, its last heartbeat, and — when its startup checks refused to run — which check
-- refused, the stable code, the operator-facing message and when. One row per worker process
-- (`<host>:<pid>`); a worker that stops cleanly marks itself `stopped`.
CREATE TABLE worker_reports (
  worker_id text PRIMARY KEY
    CONSTRAINT worker_reports_id_format CHECK (char_length(worker_id) BETWEEN 1 AND 253),
  state text NOT NULL CONSTRAINT worker_reports_state CHECK (state IN ('running', 'refused', 'stopped')),
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  refused_check text,
  refusal_code text,
  refusal_message text CONSTRAINT worker_reports_message_length CHECK (char_length(refusal_message) <= 4000),
  refused_at timestamptz,
  CONSTRAINT worker_reports_refusal_complete CHECK (
    (state = 'refused') = (refused_check IS NOT NULL AND refusal_code IS NOT NULL
      AND refusal_message IS NOT NULL AND refused_at IS NOT NULL)
  )
);

CREATE INDEX worker_reports_recent ON worker_reports (heartbeat_at DESC);
