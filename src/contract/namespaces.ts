/**
 * The Namespace resource as the API shows it (control-plane.md §1) and the bodies and
 * parameters of its routes. Beyond the upstream product, `placement` says where the tenant
 * lives and `statusReason` why it is not ready.
 */
import { Type, type Static } from "@sinclair/typebox";
import { PREPROVISIONED_NAMESPACE_ID_PATTERN } from "../domain/placement/ids.js";
import {
  NAMESPACE_STATUSES,
  NAMESPACE_STATUS_CODES,
  PLACEMENT_MODES,
} from "../domain/placement/namespace-status.js";
import {
  Closed,
  DateTime,
  DisplayName,
  IdString,
  literalUnion,
  Nullable,
  PageQuerySchema,
} from "./envelopes.js";

/** The longest Namespace name, in characters (code points). */
export const MAX_NAMESPACE_NAME_LENGTH = 200;

/** Namespace IDs in paths: the wider (preprovisioned) pattern, which holds server IDs too. */
export const NamespaceIdSchema = IdString(
  PREPROVISIONED_NAMESPACE_ID_PATTERN.source,
  "A Namespace ID (`ns_…`).",
);

/** The path parameters of every route under `/namespaces/{id}/…`. */
export const NamespaceScopedParamsSchema = Closed({ id: NamespaceIdSchema });

const DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

export const CreateNamespaceBodySchema = Closed(
  {
    name: DisplayName({
      maxLength: MAX_NAMESPACE_NAME_LENGTH,
      description: "Unique in the Installation for ever; a deleted Namespace's name is retired.",
    }),
    existingNamespace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description:
          "An operator-owned Kubernetes namespace to adopt (administrators only). Not a reserved name: default, kube-*, openshift-*, oce-*, or the controller's own namespace.",
      }),
    ),
  },
  { examples: [{ name: "support" }] },
);
export type CreateNamespaceBody = Static<typeof CreateNamespaceBodySchema>;

export const NamespaceParamsSchema = Closed({ id: NamespaceIdSchema });

/** `GET /namespaces`: a page, optionally of one status only. */
export const NamespaceListQuerySchema = Closed({
  ...PageQuerySchema.properties,
  status: Type.Optional(literalUnion(NAMESPACE_STATUSES)),
});
export type NamespaceParams = Static<typeof NamespaceParamsSchema>;

export const PlacementSchema = Closed({
  mode: literalUnion(PLACEMENT_MODES),
  kubernetesNamespace: Nullable(
    Type.String({
      description:
        "The Kubernetes namespace the tenant is (or will be) placed in: the bound one once the worker recorded it, else the selected or derived name.",
    }),
  ),
  uid: Nullable(Type.String({ description: "metadata.uid of the bound namespace, once bound." })),
  observedUid: Nullable(
    Type.String({
      description:
        "metadata.uid of the Kubernetes namespace the last pass saw; null when it was absent or not read. Differs from `uid` when the namespace was recreated.",
    }),
  ),
});

export const StatusReasonSchema = Closed({
  code: literalUnion(NAMESPACE_STATUS_CODES),
  message: Type.String({ maxLength: 256 }),
  since: DateTime,
});

export const NamespaceSchema = Closed({
  id: NamespaceIdSchema,
  name: Type.String(),
  existingNamespace: Type.Optional(Type.String()),
  status: literalUnion(NAMESPACE_STATUSES),
  placement: PlacementSchema,
  statusReason: Nullable(StatusReasonSchema),
  lastReconciledAt: Nullable(
    Type.String({
      format: "date-time",
      description:
        "When the worker's last pass over this Namespace reached a verdict (lifecycle.md §2); null before the first.",
    }),
  ),
  createdAt: DateTime,
});
export type NamespaceView = Static<typeof NamespaceSchema>;
