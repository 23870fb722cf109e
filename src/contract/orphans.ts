/**
 * Orphaned tenant namespaces (quality.md R9): the report of `GET /namespaces/orphans` and the
 * body of `POST /namespaces/imports`, which re-attaches an orphan to a new platform Namespace
 * through the external-adoption path once its stale markers were released.
 */
import { Type, type Static } from "@sinclair/typebox";
import { ORPHAN_PLACEMENTS } from "../domain/placement/orphans.js";
import { PREPROVISIONED_NAMESPACE_ID_PATTERN } from "../domain/placement/ids.js";
import { Closed, IdString, Nullable, literalUnion } from "./envelopes.js";
import { CreateNamespaceBodySchema } from "./namespaces.js";

export const OrphanNamespaceSchema = Closed(
  {
    kubernetesNamespace: Type.String({ description: "The Kubernetes namespace." }),
    uid: Nullable(Type.String({ description: "Its metadata.uid." })),
    namespaceIds: Type.Array(Type.String(), {
      description:
        "The platform Namespace IDs its tenant markers name that the database does not know.",
    }),
    placement: literalUnion(ORPHAN_PLACEMENTS, {
      description: "From its lifecycle annotation: none is managed.",
    }),
    terminating: Type.Boolean({ description: "It is being deleted (deletionTimestamp set)." }),
  },
  {
    examples: [
      {
        kubernetesNamespace: "team-a",
        uid: "6f1c…",
        namespaceIds: ["ns_01jexample"],
        placement: "external",
        terminating: false,
      },
    ],
  },
);
export type OrphanNamespaceView = Static<typeof OrphanNamespaceSchema>;

export const OrphanListSchema = Closed({ items: Type.Array(OrphanNamespaceSchema) });
export type OrphanList = Static<typeof OrphanListSchema>;

/** What the import released by hand before it asked the API (audited as given). */
export const ReleasedMarkersSchema = Closed({
  labels: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 8 }),
  annotations: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 8 }),
  ownedObjects: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    description:
      "The stale tenant's own NetworkPolicies, ResourceQuota and LimitRange deleted (a new tenant's have the same names).",
  }),
});

/** `name` and `existingNamespace` exactly as `POST /namespaces` takes them, both required. */
const Selection = Type.Required(
  Type.Pick(CreateNamespaceBodySchema, ["name", "existingNamespace"]),
);

export const ImportNamespaceBodySchema = Closed(
  {
    ...Selection.properties,
    staleNamespaceId: IdString(
      PREPROVISIONED_NAMESPACE_ID_PATTERN.source,
      "The unknown platform Namespace ID the orphan's markers named (`occ namespaces orphans`).",
    ),
    released: ReleasedMarkersSchema,
  },
  {
    examples: [
      {
        name: "team-a",
        existingNamespace: "team-a",
        staleNamespaceId: "ns_01jexample",
        released: {
          labels: ["openclaw.dev/namespace", "openclaw.dev/gateway-namespace"],
          annotations: ["openclaw.dev/namespace-id"],
          ownedObjects: 5,
        },
      },
    ],
  },
);
export type ImportNamespaceBody = Static<typeof ImportNamespaceBodySchema>;
