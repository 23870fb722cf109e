/**
 * The one read → decide → write-on-change step every converging pass runs per object: the
 * tenant's owned objects, an Agent's workload objects, the preprovisioned namespace's own
 * objects and the OpenShell workspace resources. The decision is the domain's
 * ({@link WriteDecision}); this step only performs it, so a pass over unchanged objects
 * issues reads and no write.
 */
import type { HasMetadata, WriteDecision } from "../../domain/index.js";
import { isKubeError } from "./client/index.js";

/** How one object is observed, judged and written. */
export interface ConvergeStep<T extends HasMetadata, Stop> {
  /** The object as it is now: a read, or what a list made in this pass returned. */
  observe(): Promise<T | null>;
  /** The domain's decision for what was observed. */
  decide(observed: T | null): WriteDecision<Stop>;
  /** Creates the object (a plain POST: a concurrent creator gets 409 AlreadyExists). */
  create(): Promise<unknown>;
  /** Updates ours, guarded by the observed `resourceVersion`. */
  update(resourceVersion: string | undefined): Promise<unknown>;
  /**
   * A create that lost a race (409 AlreadyExists). `reread`: read the winner's object with it
   * and decide once more (verified, not reported as a conflict); `stop`: answer that outcome;
   * absent: the error propagates.
   */
  readonly lostRace?: { readonly reread: () => Promise<T | null> } | { readonly stop: Stop };
}

/** `written` (created or updated), `unchanged` (no write), or the decision's stop outcome. */
export type Converged<Stop> = "written" | "unchanged" | Stop;

/** Runs one {@link ConvergeStep}. Kubernetes errors other than a handled race propagate. */
export async function convergeObject<T extends HasMetadata, Stop>(
  step: ConvergeStep<T, Stop>,
): Promise<Converged<Stop>> {
  return perform(step, await step.observe(), false);
}

async function perform<T extends HasMetadata, Stop>(
  step: ConvergeStep<T, Stop>,
  observed: T | null,
  raced: boolean,
): Promise<Converged<Stop>> {
  const decision = step.decide(observed);
  switch (decision.action) {
    case "none":
      return "unchanged";
    case "stop":
      return decision.result;
    case "update":
      await step.update(decision.resourceVersion);
      return "written";
    case "create":
      try {
        await step.create();
        return "written";
      } catch (err) {
        const race = step.lostRace;
        if (raced || race === undefined || !isAlreadyExists(err)) throw err;
        if ("stop" in race) return race.stop;
        return perform(step, await race.reread(), true);
      }
  }
}

/** 409 AlreadyExists: a create lost to a concurrent one. */
export function isAlreadyExists(err: unknown): boolean {
  return isKubeError(err, "conflict") && err.reason === "AlreadyExists";
}
