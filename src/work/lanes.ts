/**
 * Lanes (control-plane.md §5): the `subject` column of a work item, within which at most one
 * item is claimed at a time. A lane names the resource its work is about — `namespace:<id>` or
 * `agent:<id>` — and is written and read only here: {@link formatLane} and {@link parseLane}
 * are inverses, and parsing goes through the domain's ID parsers, so an ID read back from a
 * lane is as validated as one read from a request.
 */
import { isPreprovisionedNamespaceId, type NamespaceId } from "../domain/placement/ids.js";
import { isAgentId, type AgentId } from "../domain/workloads/ids.js";

/** The resource a lane is about. */
export type Lane =
  | { readonly of: "namespace"; readonly id: NamespaceId }
  | { readonly of: "agent"; readonly id: AgentId };

export type LaneOf = Lane["of"];

/** The subject of a lane's work items. */
export function formatLane(lane: Lane): string {
  return `${lane.of}:${lane.id}`;
}

/**
 * The lane a subject names, or `null` when it names none (an unknown prefix, or an ID that
 * does not parse): the caller treats such work as about nothing it knows.
 */
export function parseLane(subject: string): Lane | null {
  const colon = subject.indexOf(":");
  if (colon < 0) return null;
  const of = subject.slice(0, colon);
  const id = subject.slice(colon + 1);
  // Namespace IDs by the preprovisioned binding's pattern, the wider of the two (a
  // server-generated ID matches it too).
  if (of === "namespace") return isPreprovisionedNamespaceId(id) ? { of, id } : null;
  if (of === "agent") return isAgentId(id) ? { of, id } : null;
  return null;
}

/**
 * SQL: the ID in the subject expression `subject` when it names an `of` lane, else NULL. The ID
 * is not validated here: compare it with a key (a malformed one matches nothing).
 */
export function laneIdSql(of: LaneOf, subject: string): string {
  const prefix = `${of}:`;
  return `CASE WHEN left(${subject}, ${String(prefix.length)}) = '${prefix}'
    THEN substr(${subject}, ${String(prefix.length + 1)}) END`;
}

/** The lane of a Namespace's work. */
export function namespaceWorkSubject(id: NamespaceId): string {
  return formatLane({ of: "namespace", id });
}

/** The lane of an Agent's work. */
export function agentWorkSubject(id: AgentId): string {
  return formatLane({ of: "agent", id });
}

/** The Namespace ID of a lane, or `null` when the subject is not a Namespace lane. */
export function namespaceIdOfSubject(subject: string): NamespaceId | null {
  const lane = parseLane(subject);
  return lane?.of === "namespace" ? lane.id : null;
}

/** The Agent ID of a lane, or `null` when the subject is not an Agent lane. */
export function agentIdOfSubject(subject: string): AgentId | null {
  const lane = parseLane(subject);
  return lane?.of === "agent" ? lane.id : null;
}
