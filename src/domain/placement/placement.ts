/**
 * How a platform Namespace is placed (spec README, placement.md §4).
 *
 * - `managed`: OCC creates `oce-<hash15>` and deletes it with the tenant;
 * - `external`: an administrator selected an operator-owned namespace; OCC verifies it,
 *   binds the tenant to it and on deletion removes only its own objects;
 * - `preprovisioned`: the operator prepared the one namespace this controller may `get`;
 *   OCC only verifies it (preprovisioned.md). Its binding details join this variant later.
 */
export type Placement =
  | { readonly mode: "managed" }
  | { readonly mode: "external"; readonly existingNamespace: string }
  | { readonly mode: "preprovisioned" };

/** The mode names. */
export type PlacementMode = Placement["mode"];

/** The modes whose bound namespace is found by listing namespaces by tenant label (§3). */
export type ListedPlacement = Exclude<Placement, { readonly mode: "preprovisioned" }>;
