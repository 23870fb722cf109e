-- The Installation's session signing key (issue 42), used when the configuration names no
-- `auth.sessionKeyFile` (the chart's `auth.secretName` left empty). One row, written once by the
-- first API process that starts and read by every other, so a session cookie signed by one API
-- replica is accepted by all of them. A key file, when configured, always wins over this row.
CREATE TABLE session_signing_key (
  singleton boolean PRIMARY KEY DEFAULT true CONSTRAINT session_signing_key_singleton CHECK (singleton),
  key text NOT NULL CONSTRAINT session_signing_key_length CHECK (char_length(key) BETWEEN 43 AND 200),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
