-- The audit trail (control-plane.md §6). Append-only: success events commit in the same
-- transaction as their mutation; denials are written on their own. The triggers below make the
-- table refuse UPDATE, DELETE and TRUNCATE, so "append-only" does not depend on every caller.
CREATE TABLE audit_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  occurred_at timestamptz(3) NOT NULL DEFAULT now(),
  kind text NOT NULL
    CONSTRAINT audit_events_kind CHECK (kind IN ('mutation', 'authorization_denial', 'lifecycle')),
  -- The authenticated principal (unauthenticated requests are not audited), or for lifecycle
  -- events the work's frozen actor.
  actor text NOT NULL CONSTRAINT audit_events_actor_length CHECK (char_length(actor) BETWEEN 1 AND 200),
  -- e.g. `namespaces.create`, `namespaces.lifecycle.ensure`.
  action text NOT NULL
    CONSTRAINT audit_events_action_format CHECK (action ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$' AND char_length(action) <= 100),
  resource_kind text NOT NULL
    CONSTRAINT audit_events_resource_kind_format CHECK (resource_kind ~ '^[a-z][a-z0-9_]{0,62}$'),
  -- NULL when the request addressed a collection (e.g. a denied create).
  resource_id text CONSTRAINT audit_events_resource_id_length CHECK (char_length(resource_id) BETWEEN 1 AND 200),
  outcome text NOT NULL CONSTRAINT audit_events_outcome CHECK (outcome IN ('success', 'denied', 'failure')),
  request_id text CONSTRAINT audit_events_request_id_length CHECK (char_length(request_id) BETWEEN 1 AND 200),
  -- Authorization evidence and reason codes; never a secret value.
  details jsonb NOT NULL DEFAULT '{}'::jsonb
    CONSTRAINT audit_events_details_object CHECK (jsonb_typeof(details) = 'object'),
  CONSTRAINT audit_events_denial_outcome CHECK ((kind = 'authorization_denial') = (outcome = 'denied'))
);

-- Newest-first paging, and "everything about this resource".
CREATE INDEX audit_events_recent ON audit_events (occurred_at DESC, id DESC);
CREATE INDEX audit_events_resource ON audit_events (resource_kind, resource_id, occurred_at DESC);

CREATE FUNCTION audit_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege', CONSTRAINT = 'audit_events_append_only';
END;
$$;

CREATE TRIGGER audit_events_no_update_or_delete
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

CREATE TRIGGER audit_events_no_truncate
  BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
