/**
 * Gated writes (`composed.ts`) run on their own, inside a transaction whose gate has already
 * passed: the same parts the composed statement carries, under a gate of one row. A caller that
 * may settle either way (one composed statement, or a transaction) thus writes the same rows by
 * construction.
 */
import { composeGated, StatementParams, type GatedPart } from "./composed.js";
import type { Queryable } from "./db.js";

/** Runs `parts` as one statement in `q` (nothing when there are none). */
export async function runGated(q: Queryable, parts: readonly GatedPart[]): Promise<void> {
  if (parts.length === 0) return;
  const p = new StatementParams();
  await q.query(composeGated(p, "SELECT true AS passed", parts, "passed"), p.values);
}
