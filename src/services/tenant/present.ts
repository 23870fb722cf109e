/**
 * Tenant resource records as the API shows them: a Configuration with its document, a Secret
 * as metadata only (never the value), a ServiceAccount with its credential reference.
 */
import type { ConfigurationView } from "../../contract/configurations.js";
import type { ConfigurationRecord } from "../../store/configurations.js";
import type { SecretView } from "../../contract/secrets.js";
import type { SecretRecord } from "../../store/secrets.js";
import type { ServiceAccountView } from "../../contract/service-accounts.js";
import type { ServiceAccountRecord } from "../../store/service-accounts.js";

/** The response shape of one Configuration, from its metadata and its stored document. */
export function presentConfiguration(
  record: ConfigurationRecord,
  document: string,
): ConfigurationView {
  return {
    id: record.id,
    namespaceId: record.namespaceId,
    kind: record.kind,
    generation: record.generation,
    values: JSON.parse(document) as Record<string, unknown>,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export function presentSecret(record: SecretRecord): SecretView {
  return {
    id: record.id,
    namespaceId: record.namespaceId,
    name: record.name,
    version: record.version,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

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
