/**
 * Refusing early in the preprovisioned profile (preprovisioned.md §3): the Installation places
 * exactly one platform Namespace — the bound one, created by `occ bootstrap` before the chart
 * was installed — so every `POST /namespaces` (a new Namespace always gets a fresh ID) and
 * every `existingNamespace` selection could only ever fail in the worker. The request is
 * refused instead, with a stable code and a message naming the bound Namespace.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { currentManagedName } from "../../domain/placement/naming.js";
import { ServiceError } from "../errors.js";
import type { ValidCreateNamespace } from "./input.js";

/** The refusal message: names the bound Namespace and its Kubernetes namespace. */
export function preprovisionedCreateMessage(bound: NamespaceId, existing: boolean): string {
  const what = existing
    ? "existingNamespace cannot be selected"
    : "no other Namespace can be placed";
  return `This Installation runs the preprovisioned profile bound to Namespace ${bound} (Kubernetes namespace ${currentManagedName(bound)}): ${what}; use ${bound}.`;
}

/** Throws 409 `NAMESPACE_NOT_PLACEABLE` in the preprovisioned profile; nothing otherwise. */
export function refuseUnplaceable(
  bound: NamespaceId | undefined,
  request: ValidCreateNamespace,
): void {
  if (bound === undefined) return;
  throw new ServiceError(
    "NAMESPACE_NOT_PLACEABLE",
    preprovisionedCreateMessage(bound, request.placement.mode === "external"),
  );
}
