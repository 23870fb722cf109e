/**
 * How a slot got its work: `chained` — the previous pass's settle claimed it in the same
 * statement (`queue/transitions.ts`); `claimed` — a claim of its own (woken, or polling).
 */
export const CLAIM_HOWS = ["chained", "claimed"] as const;
export type ClaimHow = (typeof CLAIM_HOWS)[number];
