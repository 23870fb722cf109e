-- Foundation placeholder: a claim table with a partial unique index, used by the smoke tests
-- that prove the partial-unique-index behaviour on real PostgreSQL and that the same SQL
-- applies on PGlite. The real schema arrives with the control-plane migrations.
CREATE TABLE occ_smoke_claims (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  claimant text NOT NULL,
  released_at timestamptz
);

CREATE UNIQUE INDEX occ_smoke_claims_active_name
  ON occ_smoke_claims (name)
  WHERE released_at IS NULL;
