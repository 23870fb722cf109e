-- The claim's first step (src/queue/claim.ts): the oldest queued item whose lane is free, read
-- by walking work_items_queued in claim order and stopping at the first eligible row.
--
-- As a plain subquery the plan depended on statistics. A burst of new work lands in a table
-- whose statistics say that almost nothing is queued — a fresh installation has none, a running
-- one analyzed it while the queue was empty, and a few thousand new rows in a large table do
-- not trigger a new analyze. Estimating one queued row, the planner read every queued item and
-- sorted them for each claim (2,000 queued: 1,994 rows read and sorted, 2.2 ms a claim), so a
-- burst cost O(n²). This function plans its query with sorts and bitmap scans ruled out, so the
-- only plan left is the ordered index walk, whatever the statistics say (PL/pgSQL: the plan is
-- kept for the session, made with these settings). VOLATILE: it locks the row it returns (FOR
-- UPDATE SKIP LOCKED, as the claim did), held until the claim commits.
CREATE FUNCTION work_items_oldest_queued(p_now timestamptz, p_kinds text[])
  RETURNS TABLE (id uuid, available_at timestamptz, created_at timestamptz)
  LANGUAGE plpgsql VOLATILE
  SET enable_sort = off
  SET enable_bitmapscan = off
  SET enable_seqscan = off
AS $$
BEGIN
  RETURN QUERY
  SELECT w.id, w.available_at, w.created_at FROM work_items AS w
  WHERE w.state = 'queued' AND w.available_at <= p_now AND w.kind = ANY (p_kinds)
    AND NOT EXISTS (
      SELECT 1 FROM work_items AS o
      WHERE o.subject = w.subject AND o.state = 'claimed' AND o.id <> w.id)
  ORDER BY w.available_at, w.created_at, w.id
  LIMIT 1
  FOR UPDATE OF w SKIP LOCKED;
END
$$;
