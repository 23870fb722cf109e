/** A Secret record as the API shows it: metadata only, never the value. */
import type { SecretView } from "../../contract/secrets.js";
import type { SecretRecord } from "../../store/secrets.js";

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
