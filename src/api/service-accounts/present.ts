/** A ServiceAccount record as the API shows it. */
import type { ServiceAccountView } from "../../contract/service-accounts.js";
import type { ServiceAccountRecord } from "../../store/service-accounts.js";

export function presentServiceAccount(record: ServiceAccountRecord): ServiceAccountView {
  return {
    id: record.id,
    namespaceId: record.namespaceId,
    name: record.name,
    ...(record.credentialKind === null || record.credentialSecretId === null
      ? {}
      : { credential: { kind: record.credentialKind, secretRef: record.credentialSecretId } }),
    createdAt: record.createdAt.toISOString(),
  };
}
