-- Deduplicating a pass request (src/main/namespace-pass-request.ts) looks for the subject's
-- queued item: `UPDATE work_items … WHERE subject = $1 AND kind = … AND state = 'queued'`.
-- Every watch event and every resync asks it once per tenant, so without an index it scanned
-- the whole queue each time. Partial: only queued items are ever looked up this way.
CREATE INDEX work_items_queued_subject ON work_items (subject, kind) WHERE state = 'queued';
