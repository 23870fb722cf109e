-- Agents and their revisions (control-plane.md §1; drivers.md §4). An Agent references one
-- Configuration (and optionally one ServiceAccount) of its Namespace; deploying it admits an
-- immutable AgentRevision — a snapshot of the Configuration document, the execution mode, the
-- ServiceAccount and the Compute selection — which the worker deploys. The Agent row remains
-- (status `deleting`) until its Kubernetes objects are torn down; then it and its revisions
-- are deleted. A live Agent row blocks the deletion of its Namespace.
CREATE TABLE agents (
  id text PRIMARY KEY
    CONSTRAINT agents_id_format
      CHECK (id ~ '^agt_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL
    CONSTRAINT agents_name_format CHECK (char_length(name) BETWEEN 1 AND 200 AND name !~ '[[:cntrl:]]'),
  -- Checked by the API when the Agent is created and again on each deploy; no foreign key, so
  -- a Configuration's own lifecycle is not coupled to the Agent table.
  configuration_id text NOT NULL,
  execution_mode text NOT NULL CONSTRAINT agents_execution_mode CHECK (execution_mode IN ('embedded', 'dedicated')),
  service_account_id text,
  status text NOT NULL DEFAULT 'active' CONSTRAINT agents_status CHECK (status IN ('active', 'deleting')),
  -- The revision the gateway serves, set when a revision becomes active.
  current_revision_id text,
  revision_count integer NOT NULL DEFAULT 0 CONSTRAINT agents_revision_count CHECK (revision_count >= 0),
  status_code text CONSTRAINT agents_status_code_format CHECK (status_code ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  status_message text CONSTRAINT agents_status_message_length CHECK (char_length(status_message) <= 256),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT agents_name_unique UNIQUE (namespace_id, name),
  CONSTRAINT agents_reason_complete CHECK ((status_code IS NULL) = (status_message IS NULL))
);
CREATE INDEX agents_by_namespace ON agents (namespace_id, created_at, id);

CREATE TABLE agent_revisions (
  id text PRIMARY KEY
    CONSTRAINT agent_revisions_id_format
      CHECK (id ~ '^rev_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'),
  agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  namespace_id text NOT NULL REFERENCES namespaces (id),
  number integer NOT NULL CONSTRAINT agent_revisions_number CHECK (number >= 1),
  configuration_id text NOT NULL,
  configuration_generation integer NOT NULL CONSTRAINT agent_revisions_generation CHECK (configuration_generation >= 1),
  -- The Configuration document as it was when the revision was admitted (JSON text).
  configuration_document text NOT NULL,
  execution_mode text NOT NULL CONSTRAINT agent_revisions_execution_mode CHECK (execution_mode IN ('embedded', 'dedicated')),
  service_account_id text,
  compute jsonb NOT NULL,
  -- queued → active → retired; queued → superseded | failed.
  status text NOT NULL DEFAULT 'queued'
    CONSTRAINT agent_revisions_status CHECK (status IN ('queued', 'active', 'retired', 'superseded', 'failed')),
  status_code text CONSTRAINT agent_revisions_status_code_format CHECK (status_code ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  status_message text CONSTRAINT agent_revisions_status_message_length CHECK (char_length(status_message) <= 256),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  activated_at timestamptz(3),
  CONSTRAINT agent_revisions_number_unique UNIQUE (agent_id, number),
  CONSTRAINT agent_revisions_reason_complete CHECK ((status_code IS NULL) = (status_message IS NULL))
);
CREATE INDEX agent_revisions_by_agent ON agent_revisions (agent_id, created_at, id);

-- A revision is immutable: only its lifecycle columns may change.
CREATE FUNCTION agent_revisions_guard_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM OLD.id
     OR NEW.agent_id IS DISTINCT FROM OLD.agent_id
     OR NEW.namespace_id IS DISTINCT FROM OLD.namespace_id
     OR NEW.number IS DISTINCT FROM OLD.number
     OR NEW.configuration_id IS DISTINCT FROM OLD.configuration_id
     OR NEW.configuration_generation IS DISTINCT FROM OLD.configuration_generation
     OR NEW.configuration_document IS DISTINCT FROM OLD.configuration_document
     OR NEW.execution_mode IS DISTINCT FROM OLD.execution_mode
     OR NEW.service_account_id IS DISTINCT FROM OLD.service_account_id
     OR NEW.compute IS DISTINCT FROM OLD.compute
     OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
    RAISE EXCEPTION 'agent revision % is immutable', OLD.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'agent_revisions_immutable';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER agent_revisions_guard_update
  BEFORE UPDATE ON agent_revisions
  FOR EACH ROW EXECUTE FUNCTION agent_revisions_guard_update();
