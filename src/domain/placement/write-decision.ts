/**
 * Should one object be written? The single decision vocabulary of every read → decide →
 * write-on-change pass (placement.md §5 write discipline, drivers.md §4, preprovisioned.md §4):
 * the tenant's owned objects, an Agent's workload objects, the preprovisioned namespace's own
 * objects and the OpenShell workspace resources all answer with a {@link WriteDecision}.
 *
 * The questions are asked in one order: absent → create; present without its owner's exact
 * markers → stop (OCC never overwrites an object it does not own); being deleted → stop
 * (when the caller says what that means); different in anything OCC controls → update,
 * guarded by the observed `resourceVersion`; otherwise → none, so a pass over an unchanged
 * object writes nothing.
 */
import { isTerminating, type HasMetadata } from "./k8s-objects.js";

/** What to do with one object given what a read returned. `Stop` is the caller's outcome. */
export type WriteDecision<Stop> =
  | { readonly action: "create" }
  | { readonly action: "none" }
  | { readonly action: "update"; readonly resourceVersion: string | undefined }
  | { readonly action: "stop"; readonly result: Stop };

/** What the decision needs to know of one object, beside what was observed. */
export interface WriteRules<T extends HasMetadata, Stop> {
  /** True when `observed` carries the exact ownership markers of its owner. */
  owned(observed: T): boolean;
  /** The outcome when a same-named object is not ours. */
  readonly notOwned: Stop;
  /** The outcome when ours is being deleted; absent → compared like any other object. */
  readonly terminating?: Stop;
  /** True when `observed` (ours) differs from the desired object in anything OCC controls. */
  differs(observed: T): boolean;
}

/** Decides the write for one object; `observed` is `null` when the read found nothing. */
export function decideWrite<T extends HasMetadata, Stop>(
  observed: T | null,
  rules: WriteRules<T, Stop>,
): WriteDecision<Stop> {
  if (observed === null) return { action: "create" };
  if (!rules.owned(observed)) return { action: "stop", result: rules.notOwned };
  if (isTerminating(observed)) {
    const terminating = rules.terminating;
    if (terminating !== undefined) return { action: "stop", result: terminating };
  }
  return rules.differs(observed)
    ? { action: "update", resourceVersion: observed.metadata?.resourceVersion }
    : { action: "none" };
}
