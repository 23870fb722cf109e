/**
 * Keeping a lease alive while a Driver call runs (control-plane.md §5: "Leases are renewed
 * while a Driver call runs"): the renewal statement and the loop that repeats it.
 */
import type { Queryable } from "../store/db.js";
import { defineRow, timestamp } from "../store/columns.js";
import { nowParam, nowSql } from "./clock.js";
import { staleReason, type StaleReason } from "./transitions.js";
import type { Lease, QueueConfig } from "./work-items.js";

export type RenewResult =
  | { readonly outcome: "renewed"; readonly lease: Lease }
  | { readonly outcome: "stale"; readonly why: StaleReason };

const renewedRow = defineRow("work_items (renewed)", { leaseExpiresAt: timestamp });

/** Extends an unexpired lease by `policy.leaseMs` from now. An expired one cannot be revived. */
export async function renew<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
): Promise<RenewResult> {
  const res = await q.query(
    `UPDATE work_items AS w
     SET lease_expires_at = n.t + $4::float8 * interval '1 millisecond', updated_at = n.t
     FROM (SELECT ${nowSql(1)} AS t) AS n
     WHERE w.id = $2::uuid AND w.state = 'claimed' AND w.claim_token = $3::uuid
       AND w.lease_expires_at > n.t
     RETURNING w.lease_expires_at`,
    [nowParam(config.clock), lease.itemId, lease.token, config.policy.leaseMs],
  );
  const row = renewedRow.decodeFirst(res.rows);
  if (row !== undefined)
    return { outcome: "renewed", lease: { ...lease, expiresAt: row.leaseExpiresAt } };
  return { outcome: "stale", why: await staleReason(config, q, lease) };
}

export interface LeaseKeeper {
  /**
   * Aborted when the lease is lost — refused as stale, or not renewed before it expired
   * because the database could not be reached. Pass it to the Driver call so it stops early;
   * its result could not be published anyway.
   */
  readonly signal: AbortSignal;
  /** The lease with the latest known expiry. */
  current(): Lease;
  /** Stops renewing (waits for a renewal in flight). Call before the fenced transition. */
  stop(): Promise<void>;
}

export interface KeepAliveOptions {
  /** Time between renewals; default a third of the lease, so two may fail before it lapses. */
  readonly intervalMs?: number;
  /** Called once when the lease is lost, with why (`unreachable` when renewals kept failing). */
  readonly onLost?: (why: StaleReason | "unreachable", err?: unknown) => void;
}

/**
 * Renews `lease` every `intervalMs` until stopped or lost. A failed renewal (a database
 * error) is tolerated while the last known expiry is still ahead; once it has passed, or a
 * renewal is refused, the lease counts as lost and `signal` aborts.
 */
export function keepLeaseAlive<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  opts: KeepAliveOptions = {},
): LeaseKeeper {
  const intervalMs = opts.intervalMs ?? Math.max(1, Math.floor(config.policy.leaseMs / 3));
  const controller = new AbortController();
  let latest = lease;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const lose = (why: StaleReason | "unreachable", err?: unknown): void => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(`lease on work item ${lease.itemId} lost: ${why}`));
    opts.onLost?.(why, err);
  };

  const tick = async (): Promise<void> => {
    try {
      const res = await renew(config, q, latest);
      if (res.outcome === "renewed") latest = res.lease;
      else lose(res.why);
    } catch (err) {
      if (Date.now() >= latest.expiresAt.getTime()) lose("unreachable", err);
    }
  };

  const schedule = (): void => {
    if (stopped || controller.signal.aborted) return;
    timer = setTimeout(() => {
      inFlight = tick().then(schedule);
    }, intervalMs);
  };
  schedule();

  return {
    signal: controller.signal,
    current: () => latest,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
    },
  };
}
